/**
 * Loopback ports for tests and benchmarks.
 */
package dev.offcache.testkit.net;
