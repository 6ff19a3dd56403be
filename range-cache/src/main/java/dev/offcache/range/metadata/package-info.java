/**
 * The metadata cache: parsed Parquet footers, read through the range cache.
 */
package dev.offcache.range.metadata;
