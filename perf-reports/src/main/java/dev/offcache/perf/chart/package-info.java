/**
 * Horizontal bar charts drawn as PNG files for the performance report.
 */
package dev.offcache.perf.chart;
