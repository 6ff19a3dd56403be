package dev.offcache.embed;

import java.io.EOFException;
import java.io.IOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The cursor the Parquet and Iceberg streams share: bytes equal to the source for every read shape, the position
 * moving only for sequential reads, the object's bounds refused with {@link EOFException}, a closed cursor refused,
 * and a warm read served from the cache.
 */
class CachedCursorTest
{
    private static final URI LOCATION = URI.create("s3a://lake/t/cursor.bin");

    private final byte[] file = new byte[300_000];
    private final AtomicInteger sourceReads = new AtomicInteger();
    private SharedCache shared;
    private CachedCursor cursor;

    @BeforeEach
    void open()
    {
        for (int i = 0; i < file.length; i++)
        {
            file[i] = (byte) (i * 7 + (i >>> 9));
        }
        shared = JvmCaches.get(new CacheSettings(4L << 20, 64 << 10, 1L << 20, 4));
        shared.router().register("s3a/lake", (location, length, offset, destination) ->
        {
            sourceReads.incrementAndGet();
            final int n = destination.remaining();
            destination.put(file, (int) offset, n);
            return CompletableFuture.completedFuture(n);
        });
        final String key = shared.open(LOCATION, file.length, CacheKeys.mtimeVersion(1));
        cursor = new CachedCursor(shared, key, file.length, LOCATION);
    }

    @AfterEach
    void close()
    {
        JvmCaches.closeAll();
    }

    @Test
    void sequentialReadsAdvanceAndPositionalReadsDoNot() throws IOException
    {
        cursor.seek(1_000);
        final byte[] into = new byte[70_000];
        assertEquals(70_000, cursor.read(into, 0, into.length));
        assertArrayEquals(Arrays.copyOfRange(file, 1_000, 71_000), into);
        assertEquals(71_000, cursor.position());
        assertEquals(file[71_000] & 0xFF, cursor.read());
        assertEquals(71_001, cursor.position());

        final byte[] at = new byte[5_000];
        cursor.readFully(200_000, at, 0, at.length);
        assertArrayEquals(Arrays.copyOfRange(file, 200_000, 205_000), at);
        assertEquals(71_001, cursor.position(), "a positional read leaves the position");

        final ByteBuffer direct = ByteBuffer.allocateDirect(10_000);
        cursor.readFully(direct);
        assertEquals(81_001, cursor.position());
        final byte[] got = new byte[10_000];
        direct.flip().get(got);
        assertArrayEquals(Arrays.copyOfRange(file, 71_001, 81_001), got);

        final byte[] tail = new byte[400_000];
        assertEquals(file.length, cursor.readTail(tail, 0, tail.length), "a tail longer than the object is all of it");
        assertArrayEquals(file, Arrays.copyOf(tail, file.length));
    }

    @Test
    void theEndIsMinusOneForReadsAndEofForEverythingThatMustFit() throws IOException
    {
        cursor.seek(file.length - 10);
        final byte[] into = new byte[100];
        assertEquals(10, cursor.read(into, 0, into.length), "a read stops at the end");
        assertEquals(-1, cursor.read(into, 0, into.length));
        assertEquals(-1, cursor.read());
        assertEquals(-1, cursor.read(ByteBuffer.allocate(5)));
        assertEquals(0, cursor.read(into, 0, 0));
        assertEquals(0, cursor.read(ByteBuffer.allocate(0)));

        assertThrows(EOFException.class, () -> cursor.seek(file.length + 1));
        assertThrows(EOFException.class, () -> cursor.seek(-1));
        assertThrows(EOFException.class, () -> cursor.readFully(file.length - 5, into, 0, 10));
        assertThrows(EOFException.class, () -> cursor.readFully(-1, into, 0, 10));
        cursor.seek(file.length - 5);
        assertThrows(EOFException.class, () -> cursor.readFully(ByteBuffer.allocate(6)));
        assertEquals(file.length - 5, cursor.position(), "a refused read does not move");
    }

    @Test
    void aClosedCursorRefusesAndAWarmReadCostsNoSourceRead() throws IOException
    {
        final byte[] into = new byte[20_000];
        cursor.readFully(100_000, into, 0, into.length);
        assertArrayEquals(Arrays.copyOfRange(file, 100_000, 120_000), into);
        final int cold = sourceReads.get();
        cursor.readFully(100_000, into, 0, into.length);
        assertEquals(cold, sourceReads.get(), "warm: from the cache");

        cursor.close();
        assertThrows(IOException.class, () -> cursor.read());
        assertThrows(IOException.class, () -> cursor.seek(0));
        assertThrows(IOException.class, () -> cursor.readFully(0, into, 0, 1));
    }
}
