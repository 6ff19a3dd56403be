/**
 * The registry's counters.
 */
package dev.offcache.registry.metrics;
