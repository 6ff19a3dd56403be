package dev.offcache.transport;

import java.nio.ByteBuffer;

import dev.offcache.transport.wire.ErrorCode;
import dev.offcache.transport.wire.FrameHeader;
import dev.offcache.transport.wire.FrameType;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The header layout documented in docs/transport-aeron.md: field offsets and little-endian byte order, checked
 * byte by byte, and a round trip through the flyweight at a non-zero offset.
 */
class WireFormatTest
{
    @Test
    void headerFieldsSitAtTheDocumentedOffsetsInLittleEndian()
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(64));
        new FrameHeader().wrapForEncode(buffer, 0)
            .encode(FrameType.CHUNK, ErrorCode.CORRUPT, 0x0102030405060708L, 0x1112131415161718L,
                0x2122232425262728L, 0x31323334, 0x41424344);
        assertEquals(40, FrameHeader.LENGTH);
        assertEquals(1, buffer.getByte(0), "version low byte first");
        assertEquals(0, buffer.getByte(1));
        assertEquals(FrameType.CHUNK, buffer.getByte(2));
        assertEquals(ErrorCode.CORRUPT, buffer.getByte(4));
        assertEquals(0x08, buffer.getByte(8), "correlation id, least significant byte first");
        assertEquals(0x01, buffer.getByte(15));
        assertEquals(0x18, buffer.getByte(16));
        assertEquals(0x28, buffer.getByte(24));
        assertEquals(0x34, buffer.getByte(32));
        assertEquals(0x44, buffer.getByte(36));
        assertEquals(0x41, buffer.getByte(39));
    }

    @Test
    void roundTripAtAnOffset()
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(128));
        new FrameHeader().wrapForEncode(buffer, 13)
            .encode(FrameType.FETCH, ErrorCode.OK, -5L, 1L << 40, -1L, 7, 11);
        final FrameHeader read = new FrameHeader().wrap(buffer, 13);
        assertEquals(FrameHeader.VERSION, read.version());
        assertEquals(FrameType.FETCH, read.type());
        assertEquals(ErrorCode.OK, read.errorCode());
        assertEquals(-5L, read.correlationId());
        assertEquals(1L << 40, read.offset());
        assertEquals(-1L, read.length());
        assertEquals(7, read.index());
        assertEquals(11, read.varLength());
        assertEquals(13 + 40, read.varOffset());
        assertEquals("FETCH", FrameType.name(read.type()));
        assertEquals("NOT_FOUND", ErrorCode.name(ErrorCode.NOT_FOUND));
    }
}
