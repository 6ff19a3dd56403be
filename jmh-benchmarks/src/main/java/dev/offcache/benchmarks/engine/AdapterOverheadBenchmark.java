package dev.offcache.benchmarks.engine;

import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileRange;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.util.functional.FutureIO;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import dev.offcache.embed.CacheKeys;
import dev.offcache.embed.JvmCaches;
import dev.offcache.embed.SharedCache;
import dev.offcache.hadoop.fs.OffcacheFileSystem;
import dev.offcache.range.engine.RangeRequest;

/**
 * What the Hadoop adapter costs over reading the same cached bytes from {@code RangeCache} directly: warm 4 KiB
 * positional reads, and vectored reads of 16 ranges of 4 KiB, through {@link OffcacheFileSystem}'s stream (ours)
 * and through the engine's own API (the baseline). The ratio is the adapter's overhead; everything is in L1.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class AdapterOverheadBenchmark
{
    private static final int RANGES = 16;

    /** Bytes per range. */
    @Param("4096")
    public int readBytes;

    private Path dir;
    private OffcacheFileSystem fs;
    private FSDataInputStream in;
    private SharedCache shared;
    private String key;
    private byte[] into;
    private long span;
    private long next;
    private ByteBuffer[] buffers;

    /**
     * Writes a 16 MiB file, opens it through the adapter and warms the cache.
     *
     * @throws Exception on failure.
     */
    @Setup(Level.Trial)
    public void setUp() throws Exception
    {
        dir = Files.createTempDirectory("offcache-bench-adapter");
        final Path file = dir.resolve("data.bin");
        final byte[] data = new byte[16 << 20];
        new Random(7).nextBytes(data);
        Files.write(file, data);
        final Configuration conf = new Configuration(false);
        conf.set("offcache.fs.file.impl", "org.apache.hadoop.fs.RawLocalFileSystem");
        conf.set("offcache.l1.mb", "64");
        fs = new OffcacheFileSystem();
        fs.initialize(URI.create("file:///"), conf);
        final FileStatus status = fs.getFileStatus(new org.apache.hadoop.fs.Path(file.toUri()));
        in = FutureIO.awaitFuture(fs.openFile(status.getPath()).withFileStatus(status).build());
        in.readFully(0, new byte[data.length]);
        shared = fs.sharedCache();
        key = shared.open(fs.makeQualified(status.getPath()).toUri(), status.getLen(),
            CacheKeys.mtimeVersion(status.getModificationTime()));
        into = new byte[readBytes];
        span = data.length - (long) RANGES * readBytes * 4;
        buffers = new ByteBuffer[RANGES];
        for (int i = 0; i < RANGES; i++)
        {
            buffers[i] = ByteBuffer.allocateDirect(readBytes);
        }
    }

    /**
     * Closes the stream, the file system and the cache.
     *
     * @throws Exception on failure.
     */
    @TearDown(Level.Trial)
    public void tearDown() throws Exception
    {
        in.close();
        fs.close();
        JvmCaches.closeAll();
        Files.deleteIfExists(dir.resolve("data.bin"));
        Files.deleteIfExists(dir);
    }

    private long nextPosition()
    {
        next = (next + 1_048_573L) % span;
        return next;
    }

    /**
     * A positional read through the adapter's stream.
     *
     * @return a byte of it.
     * @throws Exception on failure.
     */
    @Benchmark
    public byte oursPositionalRead() throws Exception
    {
        in.readFully(nextPosition(), into, 0, readBytes);
        return into[0];
    }

    /**
     * The same read from the range cache directly.
     *
     * @return a byte of it.
     */
    @Benchmark
    public byte baselineRangeCachePositionalRead()
    {
        shared.cache().read(key, nextPosition(), into, 0, readBytes);
        return into[0];
    }

    /**
     * A vectored read of 16 ranges through the adapter's stream.
     *
     * @return a byte of the last range.
     * @throws Exception on failure.
     */
    @Benchmark
    public byte oursVectoredRead() throws Exception
    {
        final long base = nextPosition();
        final List<FileRange> ranges = new ArrayList<>(RANGES);
        for (int i = 0; i < RANGES; i++)
        {
            ranges.add(FileRange.createFileRange(base + i * 4L * readBytes, readBytes));
        }
        int n = 0;
        final int[] slot = {0};
        in.readVectored(ranges, (length) -> buffers[slot[0]++].clear());
        ByteBuffer last = null;
        for (final FileRange range : ranges)
        {
            last = FutureIO.awaitFuture(range.getData());
            n++;
        }
        return n == RANGES ? last.get(0) : 0;
    }

    /**
     * The same 16 ranges as one vectored read of the range cache.
     *
     * @return a byte of the last range.
     */
    @Benchmark
    public byte baselineRangeCacheVectoredRead()
    {
        final long base = nextPosition();
        for (int i = 0; i < RANGES; i++)
        {
            buffers[i].clear();
        }
        final List<RangeRequest> shifted = new ArrayList<>(RANGES);
        for (int i = 0; i < RANGES; i++)
        {
            shifted.add(RangeRequest.of(base + i * 4L * readBytes, buffers[i]));
        }
        shared.cache().readVectored(key, shifted);
        return buffers[RANGES - 1].get(0);
    }
}
