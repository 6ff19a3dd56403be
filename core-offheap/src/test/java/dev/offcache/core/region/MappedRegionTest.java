package dev.offcache.core.region;

import java.io.UncheckedIOException;
import java.nio.ReadOnlyBufferException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Random;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MappedRegionTest
{
    private static final long GIB = 1L << 30;

    @TempDir
    Path dir;

    private long mappingsBefore;

    @BeforeEach
    void countMappings()
    {
        mappingsBefore = MappedRegion.liveMappings();
    }

    @AfterEach
    void noMappingLeaks()
    {
        assertEquals(mappingsBefore, MappedRegion.liveMappings(), "mappings leaked by the test");
    }

    @Test
    void newFileIsWrittenForcedAndReadBackReadOnly()
    {
        final Path file = dir.resolve("region.dat");
        final byte[] payload = new byte[10_000];
        new Random(7).nextBytes(payload);
        try (MappedRegion region = MappedRegion.mapNewFile(file, 64 * 1024))
        {
            assertEquals(64 * 1024, region.capacity());
            assertEquals(1, region.mappingCount());
            assertEquals(mappingsBefore + 1, MappedRegion.liveMappings());
            final UnsafeBuffer view = new UnsafeBuffer(new byte[0]);
            region.wrap(view, 4096, payload.length);
            view.putBytes(0, payload);
            region.putLong(0, 0x1122334455667788L);
            region.force();
        }
        assertEquals(64 * 1024, fileSize(file));

        try (MappedRegion region = MappedRegion.mapExistingFile(file, true))
        {
            assertTrue(region.isReadOnly());
            assertEquals(64 * 1024, region.capacity());
            assertEquals(0x1122334455667788L, region.getLong(0));
            final byte[] readBack = new byte[payload.length];
            region.view(4096, payload.length).getBytes(0, readBack);
            assertArrayEquals(payload, readBack);
            assertThrows(ReadOnlyBufferException.class, () -> region.putLong(0, 1L));
            assertThrows(ReadOnlyBufferException.class, () -> region.putByte(0, (byte) 1));
            region.force();
        }
    }

    @Test
    void existingFileMappedReadWriteKeepsChanges()
    {
        final Path file = dir.resolve("rw.dat");
        MappedRegion.mapNewFile(file, 4096).close();
        try (MappedRegion region = MappedRegion.mapExistingFile(file, false))
        {
            region.putInt(100, 42);
            region.force();
        }
        try (MappedRegion region = MappedRegion.mapExistingFile(file, true))
        {
            assertEquals(42, region.getInt(100));
        }
    }

    @Test
    void newFileRefusesToOverwriteAnExistingFile() throws Exception
    {
        final Path file = dir.resolve("exists.dat");
        Files.write(file, new byte[]{1, 2, 3});
        final UncheckedIOException ex = assertThrows(UncheckedIOException.class,
            () -> MappedRegion.mapNewFile(file, 4096));
        assertInstanceOf(FileAlreadyExistsException.class, ex.getCause());
        assertArrayEquals(new byte[]{1, 2, 3}, Files.readAllBytes(file));
    }

    @Test
    void newFileThatCannotBeMappedIsNotLeftBehind()
    {
        final Path file = dir.resolve("huge.dat");
        for (final long size : new long[]{1L << 62, Long.MAX_VALUE})
        {
            final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
                () -> MappedRegion.mapNewFile(file, size));
            assertTrue(ex.getMessage().contains("too large"), ex.getMessage());
            assertFalse(Files.exists(file));
        }
        assertThrows(IllegalArgumentException.class, () -> MappedRegion.anonymous(Long.MAX_VALUE));
    }

    @Test
    void missingFileIsReportedWithItsName()
    {
        final Path file = dir.resolve("missing.dat");
        final UncheckedIOException ex = assertThrows(UncheckedIOException.class,
            () -> MappedRegion.mapExistingFile(file, true));
        assertInstanceOf(NoSuchFileException.class, ex.getCause());
        assertTrue(ex.getMessage().contains("missing.dat"), ex.getMessage());
    }

    @Test
    void emptyExistingFileIsARegionOfCapacityZero() throws Exception
    {
        final Path file = dir.resolve("empty.dat");
        Files.createFile(file);
        try (MappedRegion region = MappedRegion.mapExistingFile(file, true))
        {
            assertEquals(0, region.capacity());
            assertEquals(0, region.mappingCount());
            assertEquals(0, region.view(0, 0).capacity());
            assertThrows(IndexOutOfBoundsException.class, () -> region.view(0, 1));
        }
    }

    @Test
    void anonymousRegionIsZeroedAndWritable()
    {
        try (MappedRegion region = MappedRegion.anonymous(3 * 4096 + 8))
        {
            assertNull(region.path());
            assertEquals(3 * 4096 + 8, region.capacity());
            for (long offset = 0; offset < region.capacity(); offset += 8)
            {
                assertEquals(0L, region.getLong(offset));
            }
            final UnsafeBuffer view = region.view(4096, 4096);
            assertEquals(0, view.addressOffset() % MappedRegion.PAGE_ALIGNMENT, "slot-friendly page alignment");
            assertEquals(8, region.view(3 * 4096, 8).capacity());
            view.putLong(8, -1L);
            assertEquals(-1L, region.getLong(4096 + 8));
            region.force();
        }
    }

    @Test
    void badSizesAreRejected()
    {
        assertThrows(IllegalArgumentException.class, () -> MappedRegion.anonymous(0));
        assertThrows(IllegalArgumentException.class, () -> MappedRegion.anonymous(-5));
        assertThrows(IllegalArgumentException.class, () -> MappedRegion.mapNewFile(dir.resolve("zero.dat"), 0));
        assertThrows(IllegalArgumentException.class, () -> MappedRegion.anonymous(64, 24));
        assertThrows(NullPointerException.class, () -> MappedRegion.mapNewFile(null, 10));
    }

    @Test
    void outOfRangeViewsAreRejected()
    {
        try (MappedRegion region = MappedRegion.anonymous(4096))
        {
            final UnsafeBuffer view = new UnsafeBuffer(new byte[0]);
            assertThrows(IndexOutOfBoundsException.class, () -> region.wrap(view, -1, 10));
            assertThrows(IndexOutOfBoundsException.class, () -> region.wrap(view, 0, -1));
            assertThrows(IndexOutOfBoundsException.class, () -> region.wrap(view, 4000, 97));
            assertThrows(IndexOutOfBoundsException.class, () -> region.wrap(view, Long.MAX_VALUE, 1));
            assertThrows(IndexOutOfBoundsException.class, () -> region.getLong(4090));
            region.wrap(view, 4000, 96);
            assertEquals(96, view.capacity());
            region.wrap(view, 4096, 0);
            assertEquals(0, view.capacity());
        }
    }

    @Test
    void severalMappingsBehindLongOffsetsAndViewsNeverSpanTwo()
    {
        // 4 mappings of 64 bytes (the last one 16 bytes): the same code path as 1 GiB mappings, cheaply.
        try (MappedRegion region = MappedRegion.anonymous(208, 64))
        {
            assertEquals(4, region.mappingCount());
            assertEquals(mappingsBefore + 4, MappedRegion.liveMappings());
            assertEquals(64, region.mappingSize());

            final UnsafeBuffer view = new UnsafeBuffer(new byte[0]);
            region.wrap(view, 64, 64);
            view.putLong(0, 11L);
            assertEquals(11L, region.getLong(64));
            region.wrap(view, 192, 16);
            assertEquals(16, view.capacity());
            assertThrows(IndexOutOfBoundsException.class, () -> region.wrap(view, 200, 9));

            final IllegalArgumentException spans = assertThrows(IllegalArgumentException.class,
                () -> region.wrap(view, 60, 8));
            assertTrue(spans.getMessage().contains("crosses"), spans.getMessage());
            assertThrows(IllegalArgumentException.class, () -> region.getLong(60));

            // Copies may cross mappings.
            final byte[] bytes = new byte[150];
            new Random(3).nextBytes(bytes);
            region.putBytes(30, new UnsafeBuffer(bytes), 0, bytes.length);
            final UnsafeBuffer copy = new UnsafeBuffer(new byte[bytes.length]);
            region.getBytes(30, copy, 0, bytes.length);
            assertArrayEquals(bytes, copy.byteArray());
            assertEquals(bytes[40], region.getByte(70));
        }
    }

    @Test
    void useAfterCloseIsAClearError()
    {
        final MappedRegion region = MappedRegion.anonymous(4096);
        region.close();
        region.close();
        assertTrue(region.isClosed());
        final UnsafeBuffer view = new UnsafeBuffer(new byte[0]);
        final IllegalStateException ex = assertThrows(IllegalStateException.class, () -> region.wrap(view, 0, 8));
        assertTrue(ex.getMessage().contains("closed"), ex.getMessage());
        assertThrows(IllegalStateException.class, () -> region.view(0, 8));
        assertThrows(IllegalStateException.class, () -> region.getLong(0));
        assertThrows(IllegalStateException.class, () -> region.putLong(0, 1));
        assertThrows(IllegalStateException.class, region::force);
    }

    @Test
    void regionLargerThanTwoGibibytesOverASparseFile()
    {
        final Path file = dir.resolve("big.dat");
        final long size = 3 * GIB + 4096;
        final long[] offsets = {0, GIB - 8, GIB, 2 * GIB - 8, 2 * GIB, 3 * GIB, size - 8};
        try (MappedRegion region = MappedRegion.mapNewFile(file, size))
        {
            assertEquals(4, region.mappingCount());
            assertEquals(mappingsBefore + 4, MappedRegion.liveMappings());
            for (final long offset : offsets)
            {
                region.putLong(offset, offset ^ 0x5A5A5A5AL);
            }
            final UnsafeBuffer view = new UnsafeBuffer(new byte[0]);
            region.wrap(view, 2 * GIB + 4096, 4096);
            view.putInt(0, 77);
            assertThrows(IllegalArgumentException.class, () -> region.wrap(view, 2 * GIB - 4, 8));
            region.force();
        }
        assertEquals(size, fileSize(file));
        try (MappedRegion region = MappedRegion.mapExistingFile(file, true))
        {
            assertEquals(size, region.capacity());
            for (final long offset : offsets)
            {
                assertEquals(offset ^ 0x5A5A5A5AL, region.getLong(offset), "at " + offset);
            }
            assertEquals(77, region.view(2 * GIB + 4096, 4).getInt(0));
        }
    }

    private static long fileSize(final Path file)
    {
        try
        {
            return Files.size(file);
        }
        catch (final java.io.IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }
}
