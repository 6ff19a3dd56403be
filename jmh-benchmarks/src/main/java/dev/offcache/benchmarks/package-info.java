/**
 * The JMH benchmarks, each beside its named baseline, one package per area, and the entry point that runs them.
 */
package dev.offcache.benchmarks;
