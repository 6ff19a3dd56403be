/**
 * The Iceberg {@code FileIO} adapter: input files and streams read through the shared cache, everything else passed to
 * the real {@code FileIO}.
 */
package dev.offcache.iceberg.io;
