package dev.offcache.registry.codec;

import org.agrona.DirectBuffer;

/**
 * Reads little-endian fields (bytes, ints, longs, length-prefixed UTF-8 strings) from a region of a buffer and
 * refuses to read past its end, for the registry's binary formats: the journal's change records and the cluster's
 * wire messages. A bad length or a truncated field throws {@link IllegalArgumentException}; callers that decode
 * durable data rethrow it naming the record. Holds no memory: it views the caller's buffer, which must stay valid
 * while the reader is used. Reusable through {@link #wrap}; not thread-safe.
 */
public class FieldReader
{
    private DirectBuffer source;
    private int position;
    private int end;

    /**
     * Points the reader at a region.
     *
     * @param source the buffer.
     * @param offset where the region starts.
     * @param length its length.
     * @return this.
     */
    public FieldReader wrap(final DirectBuffer source, final int offset, final int length)
    {
        this.source = source;
        this.position = offset;
        this.end = offset + length;
        return this;
    }

    /**
     * Bytes left in the region.
     *
     * @return the remaining length.
     */
    public int remaining()
    {
        return end - position;
    }

    /**
     * Where the next field starts, as an index into the buffer.
     *
     * @return the position.
     */
    public int position()
    {
        return position;
    }

    /**
     * Skips bytes.
     *
     * @param bytes how many.
     */
    public void skip(final int bytes)
    {
        need(bytes);
        position += bytes;
    }

    /**
     * The next byte, without consuming it.
     *
     * @return the byte.
     */
    public byte peekByte()
    {
        need(1);
        return source.getByte(position);
    }

    /**
     * The next int, without consuming it.
     *
     * @return the int.
     */
    public int peekInt()
    {
        need(Integer.BYTES);
        return source.getInt(position);
    }

    /**
     * Reads a byte.
     *
     * @return the byte.
     */
    public byte getByte()
    {
        need(1);
        return source.getByte(position++);
    }

    /**
     * Reads an int.
     *
     * @return the int.
     */
    public int getInt()
    {
        need(Integer.BYTES);
        final int value = source.getInt(position);
        position += Integer.BYTES;
        return value;
    }

    /**
     * Reads a long.
     *
     * @return the long.
     */
    public long getLong()
    {
        need(Long.BYTES);
        final long value = source.getLong(position);
        position += Long.BYTES;
        return value;
    }

    /**
     * Reads an int length, then that many bytes of UTF-8.
     *
     * @return the string.
     */
    public String getString()
    {
        final int length = getInt();
        if (length < 0)
        {
            throw new IllegalArgumentException("negative string length " + length);
        }
        need(length);
        final String value = source.getStringUtf8(position - Integer.BYTES);
        position += length;
        return value;
    }

    /**
     * Reads bytes into a new array (for cold paths: snapshots, diagnostics).
     *
     * @param length how many.
     * @return the bytes.
     */
    public byte[] getBytes(final int length)
    {
        need(length);
        final byte[] bytes = new byte[length];
        source.getBytes(position, bytes);
        position += length;
        return bytes;
    }

    /**
     * Reads an element count and checks it against what is left (every element takes at least one byte).
     *
     * @return the count.
     */
    public int count()
    {
        final int count = getInt();
        if (count < 0 || count > remaining())
        {
            throw new IllegalArgumentException("implausible count " + count + " with " + remaining() + " bytes left");
        }
        return count;
    }

    private void need(final int bytes)
    {
        if (bytes < 0 || bytes > end - position)
        {
            throw new IllegalArgumentException("truncated: need " + bytes + " bytes, " + (end - position) + " left");
        }
    }
}
