/**
 * Planning and running the benchmarks of a profile, with progress and time estimates.
 */
package dev.offcache.perf.run;
