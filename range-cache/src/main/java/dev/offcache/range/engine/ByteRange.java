package dev.offcache.range.engine;

/**
 * A byte range of an object: {@code length} bytes from {@code position}. The one range type of the repo: what
 * {@link RangeCache#prefetch(String, java.util.List)} warms, and what the server parses a {@code Range} header into.
 * (A read into a caller's buffer is a {@link RangeRequest}: a range plus where its bytes go.)
 *
 * @param position the first byte.
 * @param length   bytes.
 */
public record ByteRange(long position, long length)
{
}
