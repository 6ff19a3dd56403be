/**
 * Benchmarks of the L2 server's request handling.
 */
package dev.offcache.benchmarks.server;
