/**
 * Benchmarks of the append-only journal.
 */
package dev.offcache.benchmarks.journal;
