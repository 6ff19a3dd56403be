/**
 * Pairing each benchmark with its baseline by naming convention, and the speed-up ratios of the pairs.
 */
package dev.offcache.perf.pairing;
