/**
 * offcache-counters: prints a counters file (the server's or an engine's) as name and value lines.
 */
package dev.offcache.tools.counters;
