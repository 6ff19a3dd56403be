package dev.offcache.range.metadata;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.agrona.MutableDirectBuffer;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.format.FileMetaData;
import org.apache.parquet.format.SchemaElement;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The footer cache on real Parquet files written by parquet-hadoop's writer, counting the tail reads that reach the
 * (file-backed) tail reader.
 */
class ParquetFooterCacheTest
{
    private static final MessageType SCHEMA = MessageTypeParser.parseMessageType(
        "message trips { required int64 id; required binary city (UTF8); required double fare; }");

    @TempDir
    static Path dir;
    static final Map<String, Path> FILES = new HashMap<>();
    static final Map<String, Integer> ROWS = new HashMap<>();

    static final class CountingFileTailReader implements TailReader<String>
    {
        final AtomicInteger reads = new AtomicInteger();
        final AtomicBoolean failing = new AtomicBoolean();

        public int readTail(
            final String key, final MutableDirectBuffer destination, final int destinationOffset, final int length)
            throws IOException
        {
            reads.incrementAndGet();
            if (failing.get())
            {
                throw new IOException("origin down");
            }
            final Path path = FILES.get(key);
            if (path == null)
            {
                throw new IOException("no such object: " + key);
            }
            try (RandomAccessFile file = new RandomAccessFile(path.toFile(), "r"))
            {
                final int n = (int) Math.min(length, file.length());
                final byte[] bytes = new byte[n];
                file.seek(file.length() - n);
                file.readFully(bytes);
                destination.putBytes(destinationOffset, bytes);
                return n;
            }
        }
    }

    @BeforeAll
    static void writeParquetFiles() throws IOException
    {
        for (int f = 0; f < 10; f++)
        {
            final int rows = 500 + f * 137;
            final Path path = dir.resolve("trips-" + f + ".parquet");
            final SimpleGroupFactory groups = new SimpleGroupFactory(SCHEMA);
            try (ParquetWriter<Group> writer = ExampleParquetWriter.builder(new LocalOutputFile(path))
                .withType(SCHEMA)
                .withRowGroupSize(64L * 1024)
                .build())
            {
                for (int i = 0; i < rows; i++)
                {
                    writer.write(groups.newGroup()
                        .append("id", (long) i)
                        .append("city", "city-" + (i % 17))
                        .append("fare", i * 0.25));
                }
            }
            FILES.put("lake/trips-" + f + ".parquet", path);
            ROWS.put("lake/trips-" + f + ".parquet", rows);
        }
        final Path junk = dir.resolve("junk.bin");
        Files.write(junk, new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
        FILES.put("lake/junk.bin", junk);
        final Path tiny = dir.resolve("tiny.bin");
        Files.write(tiny, new byte[] {'P', 'A', 'R', '1'});
        FILES.put("lake/tiny.bin", tiny);
        final Path lying = dir.resolve("lying.parquet");
        final byte[] lyingBytes = new byte[64];
        lyingBytes[56] = (byte) 0xFF;
        lyingBytes[57] = (byte) 0xFF;
        lyingBytes[58] = (byte) 0xFF;
        lyingBytes[59] = (byte) 0x7F;
        System.arraycopy("PAR1".getBytes(java.nio.charset.StandardCharsets.US_ASCII), 0, lyingBytes, 60, 4);
        Files.write(lying, lyingBytes);
        FILES.put("lake/lying.parquet", lying);
    }

    static int footerLengthOnDisk(final String key) throws IOException
    {
        try (RandomAccessFile file = new RandomAccessFile(FILES.get(key).toFile(), "r"))
        {
            file.seek(file.length() - 8);
            return Integer.reverseBytes(file.readInt());
        }
    }

    @Test
    void parsesARealFooterOnceAndServesItHotWithoutTailReads() throws IOException
    {
        final CountingFileTailReader reader = new CountingFileTailReader();
        final ParquetFooterCache<String> cache = new ParquetFooterCache<>(50L << 20, 1 << 20, reader);
        final String key = "lake/trips-3.parquet";
        final ParquetFooter footer = cache.footer(key);
        final FileMetaData metaData = footer.metaData();
        assertEquals((long) ROWS.get(key), metaData.getNum_rows());
        final List<String> columns = new ArrayList<>();
        for (final SchemaElement element : metaData.getSchema())
        {
            columns.add(element.getName());
        }
        assertEquals(List.of("trips", "id", "city", "fare"), columns);
        assertTrue(metaData.getRow_groups().size() >= 1);
        assertEquals(footerLengthOnDisk(key), footer.footerBytes());
        assertEquals(2, reader.reads.get(), "trailer, then footer");

        for (int i = 0; i < 100; i++)
        {
            assertSame(footer, cache.footer(key));
        }
        assertEquals(2, reader.reads.get(), "a hot footer is not refetched");
        assertEquals(1, cache.parses(), "nor reparsed");
        assertEquals(100, cache.stats().hitCount());
        // Caffeine updates the weighted size in its maintenance, which runs asynchronously after the write.
        cache.cleanUp();
        assertEquals(1, cache.entryCount());
        assertEquals(footer.footerBytes(), cache.weightBytes());
    }

    @Test
    void concurrentMissesShareOneLoad() throws Exception
    {
        final CountingFileTailReader reader = new CountingFileTailReader();
        final ParquetFooterCache<String> cache = new ParquetFooterCache<>(50L << 20, 1 << 20, reader);
        final ExecutorService pool = Executors.newFixedThreadPool(8);
        try
        {
            final CountDownLatch start = new CountDownLatch(1);
            final List<Future<ParquetFooter>> results = new ArrayList<>();
            for (int i = 0; i < 8; i++)
            {
                results.add(pool.submit(() ->
                {
                    start.await();
                    return cache.footer("lake/trips-5.parquet");
                }));
            }
            start.countDown();
            final ParquetFooter first = results.get(0).get(10, TimeUnit.SECONDS);
            for (final Future<ParquetFooter> result : results)
            {
                assertSame(first, result.get(10, TimeUnit.SECONDS));
            }
            assertEquals(2, reader.reads.get(), "one load for eight concurrent misses");
            assertEquals(1, cache.parses());
        }
        finally
        {
            pool.shutdownNow();
        }
    }

    @Test
    void weighsByFooterBytesAndEvictsPastTheCapacity() throws IOException
    {
        final CountingFileTailReader reader = new CountingFileTailReader();
        int total = 0;
        int largest = 0;
        for (int f = 0; f < 10; f++)
        {
            final int length = footerLengthOnDisk("lake/trips-" + f + ".parquet");
            total += length;
            largest = Math.max(largest, length);
        }
        final long capacity = 3L * largest;
        final ParquetFooterCache<String> cache = new ParquetFooterCache<>(capacity, 1 << 20, reader);
        for (int round = 0; round < 2; round++)
        {
            for (int f = 0; f < 10; f++)
            {
                cache.footer("lake/trips-" + f + ".parquet");
                // Caffeine evicts in maintenance that runs asynchronously; run it now so the second round is
                // deterministic on a busy machine (otherwise the first round may not be evicted yet).
                cache.cleanUp();
            }
        }
        assertTrue(cache.weightBytes() <= capacity, "weight " + cache.weightBytes() + " > capacity " + capacity);
        assertTrue(cache.entryCount() < 10);
        assertTrue(cache.stats().evictionCount() > 0);
        assertTrue(reader.reads.get() > 20, "evicted footers are read again: " + reader.reads.get());
        assertTrue(total > capacity);
    }

    @Test
    void badInputIsAClearErrorAndNothingIsCached()
    {
        final CountingFileTailReader reader = new CountingFileTailReader();
        final ParquetFooterCache<String> cache = new ParquetFooterCache<>(50L << 20, 1 << 20, reader);
        final IOException junk = assertThrows(IOException.class, () -> cache.footer("lake/junk.bin"));
        assertTrue(junk.getMessage().contains("not a Parquet file"), junk.getMessage());
        final IOException lying = assertThrows(IOException.class, () -> cache.footer("lake/lying.parquet"));
        assertTrue(lying.getMessage().contains("implausible footer length"), lying.getMessage());
        final IOException tiny = assertThrows(IOException.class, () -> cache.footer("lake/tiny.bin"));
        assertTrue(tiny.getMessage().contains("too short"), tiny.getMessage());
        final IOException missing = assertThrows(IOException.class, () -> cache.footer("lake/nope.parquet"));
        assertTrue(missing.getMessage().contains("no such object"), missing.getMessage());
        assertNull(cache.getIfPresent("lake/junk.bin"));
        assertEquals(0, cache.entryCount());
        assertThrows(IOException.class, () -> cache.footer("lake/junk.bin"));
        assertEquals(5, reader.reads.get(), "failures are not cached: one trailer read per call, junk read twice");
        assertThrows(IllegalArgumentException.class, () -> new ParquetFooterCache<>(-1, 10, reader));
        final IllegalArgumentException env = assertThrows(IllegalArgumentException.class,
            () -> ParquetFooterCache.fromEnvironment(Map.of("OFFCACHE_METADATA_CACHE_MB", "fifty"), reader));
        assertTrue(env.getMessage().contains("OFFCACHE_METADATA_CACHE_MB"), env.getMessage());
    }

    @Test
    void aFailedTailReadFailsTheCallerAndTheNextCallRetries() throws IOException
    {
        final CountingFileTailReader reader = new CountingFileTailReader();
        final ParquetFooterCache<String> cache =
            ParquetFooterCache.fromEnvironment(Map.of("OFFCACHE_METADATA_CACHE_MB", "1"), reader);
        reader.failing.set(true);
        final IOException down = assertThrows(IOException.class, () -> cache.footer("lake/trips-1.parquet"));
        assertEquals("origin down", down.getMessage());
        reader.failing.set(false);
        final long rows = ROWS.get("lake/trips-1.parquet");
        assertEquals(rows, cache.footer("lake/trips-1.parquet").metaData().getNum_rows());
        assertEquals(3, reader.reads.get());
    }
}
