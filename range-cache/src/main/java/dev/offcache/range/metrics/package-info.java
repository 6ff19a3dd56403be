/**
 * The engine's metrics: counters, the counters file, Prometheus families and names, JMX beans and per-read statistics.
 */
package dev.offcache.range.metrics;
