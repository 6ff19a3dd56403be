/**
 * Benchmarks of the range cache's miss path against reading the origin directly.
 */
package dev.offcache.benchmarks.range;
