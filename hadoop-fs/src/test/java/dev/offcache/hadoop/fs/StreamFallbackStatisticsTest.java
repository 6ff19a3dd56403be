package dev.offcache.hadoop.fs;

import java.net.ServerSocket;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.attribute.FileTime;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileRange;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.util.functional.FutureIO;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.offcache.embed.JvmCaches;
import dev.offcache.embed.L2Bridge;

import static dev.offcache.hadoop.fs.LocalAdapter.write;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A stream's counters for what did not go the cache's way, exact per stream: reads the cache failed and the bytes
 * the real file system's own stream returned for them; fetch requests a broken L2 failed; an L2 answer for another
 * version of the file (a size mismatch) and the reads of that file L2 is then no longer asked for (unverified).
 */
class StreamFallbackStatisticsTest
{
    private static final int BLOCK = LocalAdapter.BLOCK;
    private static final String KEY = "fallback-test-key-0123456789";

    @TempDir
    java.nio.file.Path dir;

    @AfterEach
    void tearDown()
    {
        JvmCaches.closeAll();
    }

    @Test
    void readsTheCacheFailedCountTheFileSystemStreamsBytes() throws Exception
    {
        try (FileSystem fs = FileSystem.get(URI.create("file:///"), LocalAdapter.conf()))
        {
            final Path path = new Path(dir.toUri().toString(), "f.bin");
            final byte[] data = write(fs, path, 4 * BLOCK, 7);
            final FileStatus status = fs.getFileStatus(path);
            try (FSDataInputStream in = FutureIO.awaitFuture(fs.openFile(path).withFileStatus(status).build()))
            {
                final byte[] head = new byte[100];
                in.readFully(0, head);
                JvmCaches.closeAll();
                final byte[] all = new byte[data.length];
                in.readFully(0, all);
                assertArrayEquals(data, all);
                final ByteBuffer direct = ByteBuffer.allocateDirect(300);
                assertEquals(300, in.read(BLOCK, direct));
                assertEquals(ByteBuffer.wrap(data, BLOCK, 300), direct.flip());
                final List<FileRange> ranges = List.of(FileRange.createFileRange(5, 100),
                    FileRange.createFileRange(3 * BLOCK, 50));
                in.readVectored(ranges, ByteBuffer::allocate);
                assertEquals(ByteBuffer.wrap(data, 5, 100), FutureIO.awaitFuture(ranges.get(0).getData()));
                assertEquals(ByteBuffer.wrap(data, 3 * BLOCK, 50), FutureIO.awaitFuture(ranges.get(1).getData()));

                final Map<String, Long> c = in.getIOStatistics().counters();
                // the first read went through the cache (one fetch of block 0); the four after it fell back
                assertEquals(List.of(4L, 4L * BLOCK + 450, 4L * BLOCK + 550, 1L, 1L, (long) BLOCK),
                    List.of(c.get(StreamStatistics.FALLBACKS), c.get(StreamStatistics.FALLBACK_BYTES),
                        c.get(StreamStatistics.BYTES), c.get(StreamStatistics.L1_MISSES),
                        c.get(StreamStatistics.FETCH_REQUESTS), c.get(StreamStatistics.FETCH_BYTES)),
                    c.toString());
            }
        }
    }

    @Test
    void aBrokenL2CountsOneL2FallbackPerFetchRequest() throws Exception
    {
        final int port;
        try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress()))
        {
            port = socket.getLocalPort();
        }
        // nothing listens there any more: every L2 request is refused
        final Configuration conf = l2Conf("http://127.0.0.1:" + port, dir.toUri().toString());
        try (FileSystem fs = FileSystem.get(URI.create("file:///"), conf))
        {
            final Path path = new Path(dir.toUri().toString(), "b.bin");
            final int size = 5 * BLOCK + 77;
            final byte[] data = write(fs, path, size, 8);
            final FileStatus status = fs.getFileStatus(path);
            CountingLocalFileSystem.reset();
            try (FSDataInputStream in = FutureIO.awaitFuture(fs.openFile(path).withFileStatus(status).build()))
            {
                final byte[] head = new byte[BLOCK];
                in.readFully(0, head);
                final byte[] tail = new byte[2 * BLOCK + 77];
                in.readFully(3 * BLOCK, tail);
                assertArrayEquals(Arrays.copyOfRange(data, 0, BLOCK), head);
                assertArrayEquals(Arrays.copyOfRange(data, 3 * BLOCK, size), tail);

                final Map<String, Long> c = in.getIOStatistics().counters();
                assertEquals(List.of(2L, 2L, 0L, 0L, 0L, 0L, 2L, 3L * BLOCK + 77),
                    List.of(c.get(StreamStatistics.FETCH_REQUESTS), c.get(StreamStatistics.L2_FALLBACKS),
                        c.get(StreamStatistics.L2_HITS), c.get(StreamStatistics.L2_SIZE_MISMATCHES),
                        c.get(StreamStatistics.L2_UNVERIFIED), c.get(StreamStatistics.FALLBACKS),
                        c.get(StreamStatistics.ORIGIN_REQUESTS), c.get(StreamStatistics.ORIGIN_BYTES)),
                    c.toString());
                assertEquals(2, CountingLocalFileSystem.OPENS.get(), "the file system served both requests");
                final L2Bridge l2 = ((OffcacheFileSystem) fs).sharedCache().l2();
                assertEquals(2, l2.fallbacks(), l2.toString());
            }
        }
    }

    @Test
    void anAnswerForAnotherLengthIsASizeMismatchAndLaterReadsOfTheFileAreUnverified() throws Exception
    {
        final java.nio.file.Path lake = Files.createDirectories(dir.resolve("lake/t"));
        final java.nio.file.Path file = lake.resolve("part-0.bin");
        final byte[] first = random(120_000, 1);
        Files.write(file, first);
        try (L2Server server = L2Server.overDirectory(dir.resolve("lake"), KEY, 64))
        {
            final Configuration conf = l2Conf(server.url().toString(), dir.resolve("lake").toUri().toString());
            try (FileSystem fs = FileSystem.get(URI.create("file:///"), conf))
            {
                final Path path = new Path(file.toUri());
                final FileStatus before = fs.getFileStatus(path);
                try (FSDataInputStream in = FutureIO.awaitFuture(fs.openFile(path).withFileStatus(before).build()))
                {
                    final byte[] got = new byte[first.length];
                    in.readFully(0, got);
                    assertArrayEquals(first, got);
                    final Map<String, Long> c = in.getIOStatistics().counters();
                    assertEquals(List.of(1L, 1L, 0L, 0L, 0L, 0L),
                        List.of(c.get(StreamStatistics.FETCH_REQUESTS), c.get(StreamStatistics.L2_HITS),
                            c.get(StreamStatistics.L2_FALLBACKS), c.get(StreamStatistics.L2_SIZE_MISMATCHES),
                            c.get(StreamStatistics.L2_UNVERIFIED), c.get(StreamStatistics.ORIGIN_REQUESTS)),
                        "the server now holds the first version: " + c);
                }

                // rewritten with another length (and a later mtime, so a new cache key) behind the server
                final byte[] second = random(90_000, 2);
                Files.write(file, second);
                Files.setLastModifiedTime(file,
                    FileTime.fromMillis(before.getModificationTime() + 10_000));
                final FileStatus after = fs.getFileStatus(path);
                try (FSDataInputStream in = FutureIO.awaitFuture(fs.openFile(path).withFileStatus(after).build()))
                {
                    final byte[] head = new byte[BLOCK];
                    in.readFully(0, head);
                    final byte[] later = new byte[BLOCK];
                    in.readFully(4 * BLOCK, later);
                    assertArrayEquals(Arrays.copyOfRange(second, 0, BLOCK), head, "not the server's old bytes");
                    assertArrayEquals(Arrays.copyOfRange(second, 4 * BLOCK, 5 * BLOCK), later);
                    final Map<String, Long> c = in.getIOStatistics().counters();
                    // the first request met the server's old copy; the file is then not sent to L2 any more
                    assertEquals(List.of(2L, 0L, 0L, 1L, 1L, 2L, 2L * BLOCK),
                        List.of(c.get(StreamStatistics.FETCH_REQUESTS), c.get(StreamStatistics.L2_HITS),
                            c.get(StreamStatistics.L2_FALLBACKS), c.get(StreamStatistics.L2_SIZE_MISMATCHES),
                            c.get(StreamStatistics.L2_UNVERIFIED), c.get(StreamStatistics.ORIGIN_REQUESTS),
                            c.get(StreamStatistics.ORIGIN_BYTES)),
                        c.toString());
                    final L2Bridge l2 = ((OffcacheFileSystem) fs).sharedCache().l2();
                    assertEquals(List.of(1L, 1L, 0L), List.of(l2.sizeMismatches(), l2.unverified(), l2.fallbacks()),
                        l2.toString());
                }
            }
        }
    }

    /** The local adapter's settings with L2 servers for the files under {@code root}. */
    private static Configuration l2Conf(final String servers, final String root)
    {
        final Configuration conf = LocalAdapter.conf();
        conf.set("offcache.l2.servers", servers);
        conf.set("offcache.l2.api.key", KEY);
        conf.set("offcache.l2.locations", root);
        // the machine is shared with other builds: a slow answer must not be taken for a dead server
        conf.set("offcache.l2.abandon.timeout.ms", "10000");
        return conf;
    }

    private static byte[] random(final int size, final long seed)
    {
        final byte[] data = new byte[size];
        new Random(seed).nextBytes(data);
        return data;
    }
}
