package dev.offcache.hadoop.fs;

import java.io.IOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileRange;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Options.OpenFileOptions;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.StreamCapabilities;
import org.apache.hadoop.fs.statistics.IOStatistics;
import org.apache.hadoop.util.functional.FutureIO;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.offcache.embed.JvmCaches;
import dev.offcache.embed.SharedCache;

import static dev.offcache.hadoop.fs.LocalAdapter.write;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The adapter over a counting local file system: bytes equal to the file, what it asks the real file system (status
 * calls, opens), sharing across instances, versions, vectored reads and a broken cache.
 */
class OffcacheFileSystemTest
{
    private static final int BLOCK = LocalAdapter.BLOCK;

    @TempDir
    java.nio.file.Path dir;

    private Configuration conf;

    @BeforeEach
    void setUp()
    {
        conf = LocalAdapter.conf();
    }

    @AfterEach
    void tearDown()
    {
        JvmCaches.closeAll();
    }

    private FileSystem newFs() throws IOException
    {
        return FileSystem.get(URI.create("file:///"), conf);
    }


    @Test
    void readsAreTheFileAndTheSecondReadAsksTheRealFileSystemForNothing() throws Exception
    {
        try (FileSystem fs = newFs())
        {
            assertInstanceOf(OffcacheFileSystem.class, fs);
            final Path path = new Path(dir.toUri().toString(), "a.bin");
            final byte[] data = write(fs, path, 5 * BLOCK + 77, 1);
            final FileStatus status = fs.getFileStatus(path);
            CountingLocalFileSystem.reset();
            final SharedCache shared = ((OffcacheFileSystem) fs).sharedCache();
            final long originBefore = shared.originBytes();
            try (FSDataInputStream in = FutureIO.awaitFuture(fs.openFile(path).withFileStatus(status).build()))
            {
                final byte[] all = new byte[data.length];
                in.readFully(0, all);
                assertArrayEquals(data, all);
            }
                        assertEquals(0, CountingLocalFileSystem.STATUS_CALLS.get(), "withFileStatus: no status call");
            assertTrue(CountingLocalFileSystem.OPENS.get() >= 1, "the cold read opened the real file");
            assertEquals(data.length, shared.originBytes() - originBefore, "cold: each byte read once");

            CountingLocalFileSystem.reset();
            try (FSDataInputStream in = FutureIO.awaitFuture(fs.openFile(path).withFileStatus(status).build()))
            {
                in.seek(BLOCK - 3);
                final byte[] some = new byte[2 * BLOCK];
                in.readFully(some);
                assertArrayEquals(Arrays.copyOfRange(data, BLOCK - 3, 3 * BLOCK - 3), some);
                assertEquals(3 * BLOCK - 3, in.getPos());
                assertEquals(data[3 * BLOCK - 3] & 0xFF, in.read());
            }
            assertEquals(0, CountingLocalFileSystem.STATUS_CALLS.get());
            assertEquals(0, CountingLocalFileSystem.OPENS.get(), "warm: the real file system is not asked");
            assertEquals(data.length, shared.originBytes() - originBefore);
        }
    }

    @Test
    void lengthOnlyOpenMakesNoStatusCallAndPlainOpenMakesOne() throws Exception
    {
        try (FileSystem fs = newFs())
        {
            final Path path = new Path(dir.toUri().toString(), "b.bin");
            final byte[] data = write(fs, path, 3 * BLOCK, 2);
            CountingLocalFileSystem.reset();
            try (FSDataInputStream in = FutureIO.awaitFuture(fs.openFile(path)
                .opt(OpenFileOptions.FS_OPTION_OPENFILE_LENGTH, Long.toString(data.length)).build()))
            {
                final byte[] got = new byte[100];
                in.readFully(BLOCK, got);
                assertArrayEquals(Arrays.copyOfRange(data, BLOCK, BLOCK + 100), got);
            }
            assertEquals(0, CountingLocalFileSystem.STATUS_CALLS.get());
            try (FSDataInputStream in = fs.open(path))
            {
                assertEquals(data[0] & 0xFF, in.read());
            }
            assertEquals(1, CountingLocalFileSystem.STATUS_CALLS.get(), "open(Path) asks once for the status");
        }
    }

    @Test
    void aRewrittenFileIsNeverServedFromTheOldBlocks() throws Exception
    {
        try (FileSystem fs = newFs())
        {
            final Path path = new Path(dir.toUri().toString(), "c.bin");
            final byte[] first = write(fs, path, 2 * BLOCK, 3);
            try (FSDataInputStream in = fs.open(path))
            {
                final byte[] got = new byte[first.length];
                in.readFully(0, got);
                assertArrayEquals(first, got);
            }
            final byte[] second = write(fs, path, 2 * BLOCK, 4);
            fs.setTimes(path, fs.getFileStatus(path).getModificationTime() + 5000, -1);
            try (FSDataInputStream in = fs.open(path))
            {
                final byte[] got = new byte[second.length];
                in.readFully(0, got);
                assertArrayEquals(second, got, "same path and length, new mtime: new bytes");
            }
        }
    }

    @Test
    void instancesShareOneCacheAndVectoredReadsAreCoalesced() throws Exception
    {
        try (FileSystem one = newFs(); FileSystem two = newFs())
        {
            final SharedCache shared = ((OffcacheFileSystem) one).sharedCache();
            assertSame(shared, ((OffcacheFileSystem) two).sharedCache(), "one cache per JVM and settings");
            final Path path = new Path(dir.toUri().toString(), "d.bin");
            final byte[] data = write(one, path, 8 * BLOCK, 5);
            final FileStatus status = one.getFileStatus(path);
            final long getsBefore = shared.originGets();
            try (FSDataInputStream in = FutureIO.awaitFuture(one.openFile(path).withFileStatus(status).build()))
            {
                assertTrue(in.hasCapability(StreamCapabilities.VECTOREDIO));
                assertTrue(in.hasCapability(StreamCapabilities.PREADBYTEBUFFER));
                final List<FileRange> ranges = new ArrayList<>();
                for (int i = 0; i < 8; i++)
                {
                    ranges.add(FileRange.createFileRange(i * (long) BLOCK + 10, BLOCK - 20));
                }
                in.readVectored(ranges, ByteBuffer::allocateDirect);
                for (final FileRange range : ranges)
                {
                    final ByteBuffer buffer = FutureIO.awaitFuture(range.getData());
                    final byte[] got = new byte[range.getLength()];
                    buffer.get(got);
                    final int at = (int) range.getOffset();
                    assertArrayEquals(Arrays.copyOfRange(data, at, at + range.getLength()), got);
                }
                final IOStatistics stats = in.getIOStatistics();
                assertEquals(0L, stats.counters().get(StreamStatistics.FALLBACKS));
                assertEquals(1L, stats.counters().get(StreamStatistics.VECTORED));
                assertEquals(8L, stats.counters().get(StreamStatistics.VECTORED_RANGES));
            }
            assertEquals(1, shared.originGets() - getsBefore, "8 adjoining blocks, one origin read");
            CountingLocalFileSystem.reset();
            try (FSDataInputStream in = FutureIO.awaitFuture(two.openFile(path).withFileStatus(status).build()))
            {
                final ByteBuffer got = ByteBuffer.allocate(BLOCK);
                in.readFully(3L * BLOCK, got);
                got.flip();
                assertEquals(ByteBuffer.wrap(data, 3 * BLOCK, BLOCK), got);
            }
            assertEquals(0, CountingLocalFileSystem.OPENS.get(), "the other instance reads the same cache warm");
        }
    }

    @Test
    void aVectoredReadReadsThroughAShortUnreadGapInOneOriginRead() throws Exception
    {
        try (FileSystem fs = newFs())
        {
            final SharedCache shared = ((OffcacheFileSystem) fs).sharedCache();
            final Path path = new Path(dir.toUri().toString(), "gap.bin");
            final byte[] data = write(fs, path, 8 * BLOCK, 11);
            final FileStatus status = fs.getFileStatus(path);
            final long getsBefore = shared.originGets();
            final long bytesBefore = shared.originBytes();
            try (FSDataInputStream in = FutureIO.awaitFuture(fs.openFile(path).withFileStatus(status).build()))
            {
                // Two "column chunks" with two unread blocks between them (well under offcache.coalesce.gap).
                final List<FileRange> ranges = List.of(FileRange.createFileRange(100, BLOCK),
                    FileRange.createFileRange(4L * BLOCK, 2 * BLOCK - 7));
                in.readVectored(ranges, ByteBuffer::allocate);
                for (final FileRange range : ranges)
                {
                    final ByteBuffer buffer = FutureIO.awaitFuture(range.getData());
                    final int at = (int) range.getOffset();
                    assertEquals(ByteBuffer.wrap(data, at, range.getLength()), buffer);
                }
            }
            assertEquals(1, shared.originGets() - getsBefore, "one read through the gap");
            assertEquals(6L * BLOCK, shared.originBytes() - bytesBefore, "blocks 0 to 5, gap included");
            CountingLocalFileSystem.reset();
            try (FSDataInputStream in = FutureIO.awaitFuture(fs.openFile(path).withFileStatus(status).build()))
            {
                final byte[] got = new byte[2 * BLOCK];
                in.readFully(2L * BLOCK, got);
                assertArrayEquals(Arrays.copyOfRange(data, 2 * BLOCK, 4 * BLOCK), got);
            }
            assertEquals(0, CountingLocalFileSystem.OPENS.get(), "the gap's blocks were cached");
        }
    }

    @Test
    void aBrokenCacheNeverFailsARead() throws Exception
    {
        try (FileSystem fs = newFs())
        {
            final Path path = new Path(dir.toUri().toString(), "e.bin");
            final byte[] data = write(fs, path, 4 * BLOCK, 6);
            try (FSDataInputStream in = fs.open(path))
            {
                JvmCaches.closeAll();
                final byte[] got = new byte[data.length];
                in.readFully(0, got);
                assertArrayEquals(data, got, "the closed cache fails; the real file system serves");
                final List<FileRange> ranges = List.of(FileRange.createFileRange(5, 100));
                in.readVectored(ranges, ByteBuffer::allocate);
                final ByteBuffer buffer = FutureIO.awaitFuture(ranges.get(0).getData());
                assertEquals(ByteBuffer.wrap(data, 5, 100), buffer);
                assertTrue(in.getIOStatistics().counters().get(StreamStatistics.FALLBACKS) >= 2);
            }
        }
    }

    @Test
    void aFailingOriginFailsTheReadWithItsOwnError() throws Exception
    {
        try (FileSystem fs = newFs())
        {
            final Path path = new Path(dir.toUri().toString(), "f.bin");
            write(fs, path, BLOCK, 7);
            try (FSDataInputStream in = fs.open(path))
            {
                CountingLocalFileSystem.failOpens = true;
                final IOException error = assertThrows(IOException.class, () -> in.readFully(0, new byte[10]));
                assertTrue(error.getMessage().contains("injected"), error.getMessage());
            }
        }
    }

    @Test
    void badConfigurationIsNamed() throws Exception
    {
        conf.set("offcache.fs.file.impl", OffcacheFileSystem.class.getName());
        final IOException self = assertThrows(IOException.class, this::newFs);
        assertTrue(self.getMessage().contains("offcache.fs.file.impl"), self.getMessage());
        conf.set("offcache.fs.file.impl", CountingLocalFileSystem.class.getName());
        conf.set("offcache.l1.mb", "many");
        final IOException tooSmall = assertThrows(IOException.class, this::newFs);
        assertTrue(tooSmall.getMessage().contains("offcache.l1.mb"), tooSmall.getMessage());
        assertTrue(Files.isDirectory(dir));
    }
}
