package dev.offcache.server.tier;

import java.nio.ByteBuffer;
import java.nio.file.Path;

import dev.offcache.server.source.BlockByteBuf;
import io.netty.buffer.ByteBuf;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Verified SSD block files the tier keeps open are mapped: a resident part is handed out as memory equal to the
 * block's bytes, counted as a send from the mapping; a file opened per send is not mapped; a held file stays
 * readable from its mapping after the tier dropped the block.
 */
class SsdFileMappingTest
{
    private static final int BLOCK = 64 * 1024;
    private static final ObjectName NAME = new ObjectName("ns", "m");

    @TempDir
    Path dir;

    private static UnsafeBuffer block(final int seed)
    {
        final UnsafeBuffer bytes = new UnsafeBuffer(new byte[BLOCK]);
        for (int i = 0; i < BLOCK; i++)
        {
            bytes.putByte(i, (byte) (i * 7 + seed));
        }
        return bytes;
    }

    private static void assertBytes(final ByteBuffer view, final int offsetInBlock, final int length, final int seed)
    {
        assertEquals(length, view.remaining());
        for (int i = 0; i < length; i++)
        {
            assertEquals((byte) ((offsetInBlock + i) * 7 + seed), view.get(view.position() + i), "byte " + i);
        }
    }

    @Test
    void aCachedVerifiedFileGivesItsResidentBytesFromTheMapping()
    {
        final UnsafeBuffer staging = new UnsafeBuffer(ByteBuffer.allocateDirect(BLOCK));
        try (TierMetrics metrics = new TierMetrics();
            SsdTier ssd = SsdTier.open(dir.resolve("cached"), 16L * BLOCK, 4, metrics))
        {
            assertTrue(ssd.write(NAME, 0, block(3), 0, BLOCK));
            assertEquals(BLOCK, ssd.read(NAME, 0, staging), "verified: just read, so its pages are resident");
            final SsdFile open = ssd.openVerified(NAME, 0, BLOCK);
            assertNotNull(open);
            try
            {
                assertTrue(open.mapped());
                final ByteBuffer part = open.residentBytes(300, 1000);
                assertNotNull(part, "pages read a moment ago are resident");
                assertBytes(part, 300, 1000, 3);
                final ByteBuffer whole = open.residentBytes(0, BLOCK);
                assertNotNull(whole);
                assertBytes(whole, 0, BLOCK, 3);
                assertEquals(2, metrics.ssdMappedSends());
                assertEquals(0, metrics.ssdColdReads());

                // what the HTTP layer sends: a Netty view of the same memory, holding its own file reference
                assertTrue(open.tryRetain());
                final ByteBuf buf = BlockByteBuf.view(open, open.residentBytes(BLOCK - 10, 10));
                assertEquals(10, buf.readableBytes());
                for (int i = 0; i < 10; i++)
                {
                    assertEquals((byte) ((BLOCK - 10 + i) * 7 + 3), buf.getByte(i));
                }
                assertTrue(buf.release());
            }
            finally
            {
                open.release();
            }
        }
    }

    @Test
    void aFileOpenedPerSendIsNotMapped()
    {
        final UnsafeBuffer staging = new UnsafeBuffer(ByteBuffer.allocateDirect(BLOCK));
        try (TierMetrics metrics = new TierMetrics();
            SsdTier ssd = SsdTier.open(dir.resolve("uncached"), 16L * BLOCK, 0, metrics))
        {
            assertTrue(ssd.write(NAME, 0, block(5), 0, BLOCK));
            assertEquals(BLOCK, ssd.read(NAME, 0, staging));
            final SsdFile open = ssd.openVerified(NAME, 0, BLOCK);
            assertNotNull(open);
            try
            {
                assertFalse(open.mapped(), "a map and unmap per chunk would cost more than its sendfile");
                assertNull(open.residentBytes(0, BLOCK));
                assertEquals(0, metrics.ssdMappedSends() + metrics.ssdColdReads());
            }
            finally
            {
                open.release();
            }
        }
    }

    @Test
    void aHeldFileStaysReadableFromItsMappingAfterTheTierDroppedIt()
    {
        final UnsafeBuffer staging = new UnsafeBuffer(ByteBuffer.allocateDirect(BLOCK));
        try (TierMetrics metrics = new TierMetrics();
            SsdTier ssd = SsdTier.open(dir.resolve("dropped"), 16L * BLOCK, 4, metrics))
        {
            assertTrue(ssd.write(NAME, 0, block(9), 0, BLOCK));
            assertEquals(BLOCK, ssd.read(NAME, 0, staging));
            final SsdFile open = ssd.openVerified(NAME, 0, BLOCK);
            assertNotNull(open);
            assertEquals(1, ssd.openFileCount());
            assertEquals(1, ssd.removeObject(NAME), "dropped (and unlinked) while a reader holds it");
            assertEquals(0, ssd.openFileCount(), "the cache let go of its reference");
            try
            {
                final ByteBuffer whole = open.residentBytes(0, BLOCK);
                assertNotNull(whole);
                assertBytes(whole, 0, BLOCK, 9);
            }
            finally
            {
                open.release();
            }
            assertNull(ssd.openVerified(NAME, 0, BLOCK), "gone from the tier");
        }
    }
}
