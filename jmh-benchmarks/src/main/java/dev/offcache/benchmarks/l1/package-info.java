/**
 * Benchmarks of the L1 store's hit path, and a simulation of its hit ratio over Zipf-distributed keys.
 */
package dev.offcache.benchmarks.l1;
