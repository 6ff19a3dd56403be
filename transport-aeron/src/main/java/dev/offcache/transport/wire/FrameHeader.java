package dev.offcache.transport.wire;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import static java.nio.ByteOrder.LITTLE_ENDIAN;

/**
 * Flyweight over the fixed 40-byte little-endian header that starts every offcache transport frame.
 * It owns no memory: {@link #wrap(DirectBuffer, int)} points it at a caller's buffer (a term buffer fragment on
 * receive, a direct send buffer on send). Layout (see docs/transport-aeron.md):
 *
 * <pre>
 *  0  int16  version        (always {@link #VERSION})
 *  2  int16  type           ({@link FrameType})
 *  4  int32  errorCode      ({@link ErrorCode}; 0 unless type is ERROR)
 *  8  int64  correlationId  (chosen by the client, echoed by the server)
 * 16  int64  offset         (FETCH: first byte wanted; CHUNK: position of this chunk in the payload)
 * 24  int64  length         (FETCH: bytes wanted, -1 = to the end; CHUNK: total payload length)
 * 32  int32  index          (CHUNK: chunk index from 0; HELLO: response stream id)
 * 36  int32  varLength      (bytes after the header: FETCH id, CHUNK data, ERROR message, HELLO channel)
 * 40  ...    variable part
 * </pre>
 */
public final class FrameHeader
{
    /** Protocol version written in every frame. */
    public static final int VERSION = 1;
    /** Offset of the version field. */
    public static final int VERSION_OFFSET = 0;
    /** Offset of the type field. */
    public static final int TYPE_OFFSET = 2;
    /** Offset of the error code field. */
    public static final int ERROR_CODE_OFFSET = 4;
    /** Offset of the correlation id field. */
    public static final int CORRELATION_ID_OFFSET = 8;
    /** Offset of the offset field. */
    public static final int OFFSET_OFFSET = 16;
    /** Offset of the length field. */
    public static final int LENGTH_OFFSET = 24;
    /** Offset of the index field. */
    public static final int INDEX_OFFSET = 32;
    /** Offset of the variable-part length field. */
    public static final int VAR_LENGTH_OFFSET = 36;
    /** Length of the fixed header; the variable part starts here. */
    public static final int LENGTH = 40;
    /** Longest id a FETCH may carry. */
    public static final int MAX_ID_LENGTH = 512;
    /** Longest message an ERROR frame carries (longer ones are cut), so an error always fits one fragment. */
    public static final int MAX_ERROR_MESSAGE_LENGTH = 256;
    /** Longest channel a HELLO may carry. */
    public static final int MAX_CHANNEL_LENGTH = 512;

    private DirectBuffer buffer;
    private MutableDirectBuffer mutableBuffer;
    private int offset;

    /**
     * Point this flyweight at a header for reading.
     *
     * @param buffer holding the frame.
     * @param offset of the frame's first byte.
     * @return this.
     */
    public FrameHeader wrap(final DirectBuffer buffer, final int offset)
    {
        this.buffer = buffer;
        this.mutableBuffer = null;
        this.offset = offset;
        return this;
    }

    /**
     * Point this flyweight at a header for writing.
     *
     * @param buffer to write the frame into.
     * @param offset of the frame's first byte.
     * @return this.
     */
    public FrameHeader wrapForEncode(final MutableDirectBuffer buffer, final int offset)
    {
        this.buffer = buffer;
        this.mutableBuffer = buffer;
        this.offset = offset;
        return this;
    }

    /**
     * Write every header field at once.
     *
     * @param type          frame type.
     * @param errorCode     error code, {@link ErrorCode#OK} unless an error frame.
     * @param correlationId request correlation id.
     * @param offsetField   the offset field.
     * @param lengthField   the length field.
     * @param index         the index field.
     * @param varLength     length of the variable part that follows.
     * @return this.
     */
    public FrameHeader encode(
        final int type,
        final int errorCode,
        final long correlationId,
        final long offsetField,
        final long lengthField,
        final int index,
        final int varLength)
    {
        final MutableDirectBuffer b = mutableBuffer;
        b.putShort(offset + VERSION_OFFSET, (short) VERSION, LITTLE_ENDIAN);
        b.putShort(offset + TYPE_OFFSET, (short) type, LITTLE_ENDIAN);
        b.putInt(offset + ERROR_CODE_OFFSET, errorCode, LITTLE_ENDIAN);
        b.putLong(offset + CORRELATION_ID_OFFSET, correlationId, LITTLE_ENDIAN);
        b.putLong(offset + OFFSET_OFFSET, offsetField, LITTLE_ENDIAN);
        b.putLong(offset + LENGTH_OFFSET, lengthField, LITTLE_ENDIAN);
        b.putInt(offset + INDEX_OFFSET, index, LITTLE_ENDIAN);
        b.putInt(offset + VAR_LENGTH_OFFSET, varLength, LITTLE_ENDIAN);
        return this;
    }

    /**
     * Returns the protocol version.
     *
     * @return the protocol version.
     */
    public int version()
    {
        return buffer.getShort(offset + VERSION_OFFSET, LITTLE_ENDIAN);
    }

    /**
     * Returns the frame type.
     *
     * @return the frame type.
     */
    public int type()
    {
        return buffer.getShort(offset + TYPE_OFFSET, LITTLE_ENDIAN);
    }

    /**
     * Returns the error code.
     *
     * @return the error code.
     */
    public int errorCode()
    {
        return buffer.getInt(offset + ERROR_CODE_OFFSET, LITTLE_ENDIAN);
    }

    /**
     * Returns the correlation id.
     *
     * @return the correlation id.
     */
    public long correlationId()
    {
        return buffer.getLong(offset + CORRELATION_ID_OFFSET, LITTLE_ENDIAN);
    }

    /**
     * Returns the offset field.
     *
     * @return the offset field.
     */
    public long offset()
    {
        return buffer.getLong(offset + OFFSET_OFFSET, LITTLE_ENDIAN);
    }

    /**
     * Returns the length field.
     *
     * @return the length field.
     */
    public long length()
    {
        return buffer.getLong(offset + LENGTH_OFFSET, LITTLE_ENDIAN);
    }

    /**
     * Returns the index field.
     *
     * @return the index field.
     */
    public int index()
    {
        return buffer.getInt(offset + INDEX_OFFSET, LITTLE_ENDIAN);
    }

    /**
     * Returns the length of the variable part.
     *
     * @return the length of the variable part.
     */
    public int varLength()
    {
        return buffer.getInt(offset + VAR_LENGTH_OFFSET, LITTLE_ENDIAN);
    }

    /**
     * Returns offset in the wrapped buffer where the variable part starts.
     *
     * @return offset in the wrapped buffer where the variable part starts.
     */
    public int varOffset()
    {
        return offset + LENGTH;
    }
}
