/**
 * The Hadoop {@code FileSystem} adapter: a file system that reads another one through the shared cache.
 */
package dev.offcache.hadoop.fs;
