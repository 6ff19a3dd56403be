/**
 * The shuffle partition store: partitions written to files, mapped for reading, and cleaned up only when no reader
 * pins them.
 */
package dev.offcache.core.shuffle;
