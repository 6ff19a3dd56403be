/**
 * The {@code offcache-perf} command line: run benchmarks, write the report, compare two runs.
 */
package dev.offcache.perf.cli;
