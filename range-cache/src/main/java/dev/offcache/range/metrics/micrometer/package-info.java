/**
 * The engine's metrics bound to a Micrometer registry.
 */
package dev.offcache.range.metrics.micrometer;
