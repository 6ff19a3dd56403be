/**
 * Where a payload server's bytes come from: the {@code PayloadSource} SPI, over buffers or shuffle partitions.
 */
package dev.offcache.transport.source;
