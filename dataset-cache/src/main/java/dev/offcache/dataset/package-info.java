/**
 * The {@code df.cache()} flow over the registry: the driver-side resolve, the executor-side partition open, stage
 * cleanup, and the single-process coordinator built on the same parts.
 */
package dev.offcache.dataset;
