/**
 * The Parquet {@code InputFile} adapter: files and streams read through the shared cache, vectored reads as one cache
 * request.
 */
package dev.offcache.parquet.io;
