/**
 * Measurements taken outside JMH (scripts such as the L2 against nginx), read from their files.
 */
package dev.offcache.perf.measure;
