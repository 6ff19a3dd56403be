/**
 * Benchmarks of shuffle partition reads.
 */
package dev.offcache.benchmarks.shuffle;
