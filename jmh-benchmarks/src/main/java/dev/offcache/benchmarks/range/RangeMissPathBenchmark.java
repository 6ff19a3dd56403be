package dev.offcache.benchmarks.range;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.openjdk.jmh.annotations.AuxCounters;
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

import dev.offcache.benchmarks.BenchmarkFiles;
import dev.offcache.range.engine.RangeCache;
import dev.offcache.range.ram.RamBlockStore;
import dev.offcache.range.metrics.MetricNames;
import dev.offcache.range.origin.FileSystemOrigin;

/**
 * The range cache's miss path: a cold sequential read of a whole object through a fresh engine (block lookups,
 * single-flight entries, coalesced 8 MiB GETs under the fetch permits, store copies, copies to the caller) against
 * reading the same local origin directly with sequential 8 MiB positional reads. The object sits in the OS page
 * cache for both, so the difference is the engine's overhead, not the disk. {@code originGets} counts GETs per op.
 *
 * <p>Small default for the smoke run; the figure: {@code -p objectMiB=64}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class RangeMissPathBenchmark
{
    private static final int CHUNK = 8 << 20;

    /** Object size in MiB. */
    @Param("8")
    public int objectMiB;

    /** Engine block size in bytes. */
    @Param("1048576")
    public int blockSize;

    private Path root;
    private ByteBuffer destinationMemory;
    private UnsafeBuffer destination;
    private FileSystemOrigin directOrigin;
    private long objectSize;

    /**
     * GETs sent to the origin and operations, per iteration: GETs per op = originGets / ops.
     */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.EVENTS)
    public static class Gets
    {
        /** GETs sent, summed over the iteration's ops. */
        public long originGets;
        /** Ops of the iteration. */
        public long ops;

        /**
         * Clears the counters per iteration.
         */
        @Setup(Level.Iteration)
        public void clear()
        {
            originGets = 0;
            ops = 0;
        }
    }

    /**
     * A fresh engine per operation, so every read through it is cold; only the engine benchmark uses it.
     */
    @State(Scope.Thread)
    public static class ColdEngine
    {
        RangeCache cache;

        /**
         * Builds the engine (outside the measured time).
         *
         * @param bench the benchmark state with the object.
         */
        @Setup(Level.Invocation)
        public void open(final RangeMissPathBenchmark bench)
        {
            cache = RangeCache.newBuilder()
                .origin(new FileSystemOrigin(bench.root, 4))
                .blockSize(bench.blockSize)
                .store(RamBlockStore.create(bench.objectSize + bench.blockSize, bench.blockSize))
                .build();
        }

        /**
         * Closes the engine of the operation.
         */
        @TearDown(Level.Invocation)
        public void close()
        {
            cache.close();
        }
    }

    /**
     * Writes the object and allocates the caller's destination.
     *
     * @throws IOException if the object cannot be written.
     */
    @Setup(Level.Trial)
    public void writeObject() throws IOException
    {
        root = Files.createTempDirectory("offcache-miss-bench");
        objectSize = (long) objectMiB << 20;
        final byte[] chunk = new byte[1 << 20];
        new Random(42).nextBytes(chunk);
        try (var out = Files.newOutputStream(root.resolve("object.bin")))
        {
            for (int i = 0; i < objectMiB; i++)
            {
                out.write(chunk);
            }
        }
        destinationMemory = ByteBuffer.allocateDirect((int) objectSize);
        destination = new UnsafeBuffer(destinationMemory);
        directOrigin = new FileSystemOrigin(root, 1);
    }

    /**
     * Frees everything.
     *
     * @throws IOException if the object cannot be deleted.
     */
    @TearDown(Level.Trial)
    public void deleteObject() throws IOException
    {
        directOrigin.close();
        BufferUtil.free(destinationMemory);
        BenchmarkFiles.deleteTree(root);
    }

    /**
     * Cold sequential read of the whole object through the engine.
     *
     * @param engine a cold engine.
     * @param gets   GET counter.
     * @return a byte of the result, so nothing is optimised away.
     */
    @Benchmark
    public byte oursColdRead(final ColdEngine engine, final Gets gets)
    {
        engine.cache.read("object.bin", 0, destination, 0, (int) objectSize);
        gets.originGets += engine.cache.metrics().value(MetricNames.ORIGIN_GETS + MetricNames.DEMAND);
        gets.ops++;
        return destination.getByte((int) objectSize - 1);
    }

    /**
     * Baseline: the same bytes straight from the local origin, 8 MiB positional reads one after another.
     *
     * @param gets GET counter.
     * @return a byte of the result.
     */
    @Benchmark
    public byte baselineOriginColdRead(final Gets gets)
    {
        for (long offset = 0; offset < objectSize; offset += CHUNK)
        {
            final int length = (int) Math.min(CHUNK, objectSize - offset);
            final ByteBuffer target = destinationMemory.duplicate();
            target.position((int) offset).limit((int) offset + length);
            final int read = directOrigin.read("object.bin", offset, target).join();
            if (read != length)
            {
                throw new IllegalStateException("short read " + read + " of " + length);
            }
            gets.originGets++;
        }
        gets.ops++;
        return destination.getByte((int) objectSize - 1);
    }
}
