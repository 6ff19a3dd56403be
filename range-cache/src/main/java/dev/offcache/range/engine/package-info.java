/**
 * The range cache engine: {@code RangeCache} and its builder, positional and vectored reads, streams for the L2
 * server, and the object directory of sizes.
 */
package dev.offcache.range.engine;
