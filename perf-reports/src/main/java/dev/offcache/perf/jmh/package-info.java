/**
 * Reading JMH result files: scores, units, errors and how far two results stand apart.
 */
package dev.offcache.perf.jmh;
