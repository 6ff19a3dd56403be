package dev.offcache.range.engine;

/**
 * A byte range of an object, for {@link RangeCache#prefetch(String, java.util.List)}.
 *
 * @param position the first byte.
 * @param length   bytes.
 */
public record ByteRange(long position, long length)
{
}
