/**
 * Benchmarks of the engine behind the adapters: a Parquet scan and the adapters' own overhead, over a file system with
 * latency.
 */
package dev.offcache.benchmarks.engine;
