/**
 * Writing the performance report: tables with ratios, charts, and the machine and run it came from.
 */
package dev.offcache.perf.report;
