/**
 * The cached-dataset coordinator: materialize a dataset once, read its partitions back, recompute what is lost.
 */
package dev.offcache.registry.coordinator;
