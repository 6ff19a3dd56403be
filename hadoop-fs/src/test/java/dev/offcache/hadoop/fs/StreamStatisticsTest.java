package dev.offcache.hadoop.fs;

import java.net.URI;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileRange;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.statistics.IOStatistics;
import org.apache.hadoop.fs.statistics.IOStatisticsLogging;
import org.apache.hadoop.fs.statistics.IOStatisticsSnapshot;
import org.apache.hadoop.fs.statistics.IOStatisticsSupport;
import org.apache.hadoop.util.functional.FutureIO;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.offcache.embed.JvmCaches;

import static dev.offcache.hadoop.fs.LocalAdapter.write;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Each stream's {@code IOStatistics} are its own and exact, read the way engines read them
 * ({@link IOStatisticsSupport#retrieveIOStatistics}, {@link IOStatisticsLogging}, aggregated in an
 * {@link IOStatisticsSnapshot}): a cold read's misses and origin bytes (checked against the opens of the real file
 * system), a reread's hits, a second stream's hits on what the first loaded while the first one's counters stay put,
 * and a vectored read with its gap read through.
 */
class StreamStatisticsTest
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

    @Test
    void eachStreamCountsExactlyItsOwnHitsMissesAndBytes() throws Exception
    {
        try (FileSystem fs = FileSystem.get(URI.create("file:///"), conf))
        {
            final Path path = new Path(dir.toUri().toString(), "a.bin");
            final int size = 5 * BLOCK + 77;
            final byte[] data = write(fs, path, size, 1);
            final FileStatus status = fs.getFileStatus(path);
            CountingLocalFileSystem.reset();
            try (FSDataInputStream a = FutureIO.awaitFuture(fs.openFile(path).withFileStatus(status).build()))
            {
                final byte[] all = new byte[size];
                a.readFully(0, all);
                assertArrayEquals(data, all);
                assertEquals(1, CountingLocalFileSystem.OPENS.get(), "one origin read of the whole file");
                final Map<String, Long> cold = counters(a);
                assertEquals(expected(size, 1, 0, 0, 6, 0, size, 1, size), cold, "cold: " + cold);

                a.readFully(0, all);
                assertArrayEquals(data, all);
                final Map<String, Long> warm = counters(a);
                assertEquals(expected(2L * size, 2, 6, size, 6, 0, size, 1, size), warm, "reread: " + warm);

                try (FSDataInputStream b = FutureIO.awaitFuture(fs.openFile(path).withFileStatus(status).build()))
                {
                    final byte[] some = new byte[2 * BLOCK];
                    b.seek(BLOCK - 3);
                    b.readFully(some);
                    assertArrayEquals(Arrays.copyOfRange(data, BLOCK - 3, 3 * BLOCK - 3), some);
                    final ByteBuffer tail = ByteBuffer.allocateDirect(77);
                    b.readFully(5L * BLOCK, tail);
                    final Map<String, Long> theirs = counters(b);
                    // seek + readFully(byte[]) is one read call; the positional ByteBuffer read is another
                    final Map<String, Long> want = expected(2L * BLOCK + 77, 2, 4, 2L * BLOCK + 77, 0, 0, 0, 0, 0);
                    want.put(StreamStatistics.SEEKS, 1L);
                    assertEquals(want, theirs, "B hits what A loaded: " + theirs);
                    assertEquals(warm, counters(a), "A's counters do not move when B reads");
                    assertEquals(1, CountingLocalFileSystem.OPENS.get(), "B asked the real file system nothing");

                    // as an engine sums its streams' statistics (per task): exact sums, not the JVM's totals twice
                    final IOStatisticsSnapshot task = IOStatisticsSupport.snapshotIOStatistics();
                    task.aggregate(IOStatisticsSupport.retrieveIOStatistics(a));
                    task.aggregate(IOStatisticsSupport.retrieveIOStatistics(b));
                    assertEquals(10L, task.counters().get(StreamStatistics.L1_HITS));
                    assertEquals(6L, task.counters().get(StreamStatistics.L1_MISSES));
                    assertEquals((long) size, task.counters().get(StreamStatistics.ORIGIN_BYTES));
                    assertEquals(1L, task.counters().get(StreamStatistics.ORIGIN_REQUESTS));
                }
                final String logged = IOStatisticsLogging.ioStatisticsToString(
                    IOStatisticsSupport.retrieveIOStatistics(a));
                assertTrue(logged.contains(StreamStatistics.L1_HITS + "=6"), logged);
                assertTrue(logged.contains(StreamStatistics.ORIGIN_BYTES + "=" + size), logged);
            }
        }
    }

    @Test
    void aVectoredReadCountsItsRangesTheGapItReadThroughAndLaterHitsOnIt() throws Exception
    {
        try (FileSystem fs = FileSystem.get(URI.create("file:///"), conf))
        {
            final Path path = new Path(dir.toUri().toString(), "v.bin");
            final byte[] data = write(fs, path, 8 * BLOCK, 2);
            final FileStatus status = fs.getFileStatus(path);
            CountingLocalFileSystem.reset();
            try (FSDataInputStream in = FutureIO.awaitFuture(fs.openFile(path).withFileStatus(status).build()))
            {
                // blocks 0 and 2 wanted; block 1 is a gap the default 1 MiB read-through reads in the same GET
                final List<FileRange> ranges = List.of(FileRange.createFileRange(100, 1000),
                    FileRange.createFileRange(2L * BLOCK + 5, 2000));
                in.readVectored(ranges, ByteBuffer::allocate);
                for (final FileRange range : ranges)
                {
                    final ByteBuffer got = FutureIO.awaitFuture(range.getData());
                    final byte[] bytes = new byte[range.getLength()];
                    got.duplicate().get(bytes);
                    assertArrayEquals(Arrays.copyOfRange(data, (int) range.getOffset(),
                        (int) range.getOffset() + range.getLength()), bytes);
                }
                assertEquals(1, CountingLocalFileSystem.OPENS.get(), "one origin read for both ranges");
                final Map<String, Long> cold = counters(in);
                final Map<String, Long> want = expected(3000, 0, 0, 0, 2, 0, 3000, 1, 3L * BLOCK);
                want.put(StreamStatistics.VECTORED, 1L);
                want.put(StreamStatistics.VECTORED_RANGES, 2L);
                assertEquals(want, cold, "cold vectored: " + cold);

                final FileRange gap = FileRange.createFileRange(BLOCK, BLOCK);
                in.readVectored(List.of(gap), ByteBuffer::allocateDirect);
                final ByteBuffer got = FutureIO.awaitFuture(gap.getData());
                final byte[] bytes = new byte[BLOCK];
                got.duplicate().get(bytes);
                assertArrayEquals(Arrays.copyOfRange(data, BLOCK, 2 * BLOCK), bytes);
                final Map<String, Long> after = counters(in);
                final Map<String, Long> wantAfter = expected(3000 + BLOCK, 0, 1, BLOCK, 2, 0, 3000, 1, 3L * BLOCK);
                wantAfter.put(StreamStatistics.VECTORED, 2L);
                wantAfter.put(StreamStatistics.VECTORED_RANGES, 3L);
                assertEquals(wantAfter, after, "the gap block was cached: " + after);
                assertEquals(1, CountingLocalFileSystem.OPENS.get());
            }
        }
    }

    /** The stream's counters as an engine reads them: through the wrapping stream's statistics source. */
    private static Map<String, Long> counters(final FSDataInputStream in)
    {
        final IOStatistics stats = IOStatisticsSupport.retrieveIOStatistics(in);
        return new TreeMap<>(stats.counters());
    }

    /** Every counter of a stream with no L2 servers, no fallbacks, seeks or vectored reads unless set after. */
    private static Map<String, Long> expected(
        final long bytes,
        final long reads,
        final long l1Hits,
        final long bytesFromL1,
        final long l1Misses,
        final long joined,
        final long bytesFromFetches,
        final long originRequests,
        final long originBytes)
    {
        final Map<String, Long> counters = new TreeMap<>();
        counters.put(StreamStatistics.BYTES, bytes);
        counters.put(StreamStatistics.READS, reads);
        counters.put(StreamStatistics.SEEKS, 0L);
        counters.put(StreamStatistics.VECTORED, 0L);
        counters.put(StreamStatistics.VECTORED_RANGES, 0L);
        counters.put(StreamStatistics.FALLBACKS, 0L);
        counters.put(StreamStatistics.FALLBACK_BYTES, 0L);
        counters.put(StreamStatistics.L1_HITS, l1Hits);
        counters.put(StreamStatistics.BYTES_FROM_L1, bytesFromL1);
        counters.put(StreamStatistics.L1_MISSES, l1Misses);
        counters.put(StreamStatistics.JOINED, joined);
        counters.put(StreamStatistics.BYTES_FROM_FETCHES, bytesFromFetches);
        counters.put(StreamStatistics.FETCH_REQUESTS, originRequests);
        counters.put(StreamStatistics.FETCH_BYTES, originBytes);
        counters.put(StreamStatistics.ORIGIN_REQUESTS, originRequests);
        counters.put(StreamStatistics.ORIGIN_BYTES, originBytes);
        return counters;
    }

}
