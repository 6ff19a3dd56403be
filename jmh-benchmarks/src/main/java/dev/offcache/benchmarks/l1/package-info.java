/**
 * Benchmarks of the RAM block store's hit path, and a simulation of its hit ratio over Zipf-distributed keys.
 */
package dev.offcache.benchmarks.l1;
