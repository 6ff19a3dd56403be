/**
 * Benchmarks of the L2 client: warm and cold reads, sharded reads and the rendezvous routing.
 */
package dev.offcache.benchmarks.l2client;
