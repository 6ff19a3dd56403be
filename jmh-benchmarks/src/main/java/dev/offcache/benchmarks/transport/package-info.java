/**
 * Benchmarks of payload fetches over Aeron, beside bare Aeron and a Netty client and server.
 */
package dev.offcache.benchmarks.transport;
