/**
 * Comparing two runs' results and measurements, with a verdict per change.
 */
package dev.offcache.perf.compare;
