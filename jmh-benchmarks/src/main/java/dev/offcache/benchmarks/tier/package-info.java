/**
 * Benchmarks of the L2 server's RAM tier hit path.
 */
package dev.offcache.benchmarks.tier;
