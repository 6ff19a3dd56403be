/**
 * Benchmarks of slab slot allocation.
 */
package dev.offcache.benchmarks.slab;
