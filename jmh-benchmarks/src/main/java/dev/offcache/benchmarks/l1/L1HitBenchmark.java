package dev.offcache.benchmarks.l1;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.offcache.benchmarks.BenchmarkFiles;
import dev.offcache.benchmarks.SequenceCursor;
import dev.offcache.benchmarks.ShortRun;
import dev.offcache.core.slab.BlockRef;
import dev.offcache.range.engine.RangeCache;
import dev.offcache.range.ram.RamBlockStore;
import dev.offcache.range.origin.FileSystemOrigin;
import dev.offcache.range.store.BlockKeys;
import dev.offcache.range.store.FetchClass;
import org.agrona.concurrent.UnsafeBuffer;
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
import org.openjdk.jmh.annotations.Threads;

/**
 * L1 hit path: a {@code readSize} read at a random aligned offset inside a cached 1 MiB block, block keys drawn from
 * a Zipf distribution, every read a hit. Ours ({@link RamBlockStore#read}: lock-free lookup, a copy from off-heap into
 * the caller's byte[] validated against the block's reference count instead of retaining it, a sampled access
 * record for the policy) beside the baseline: a Caffeine {@code Cache<Long, byte[]>} lookup plus
 * {@code System.arraycopy} into the same kind of byte[]. Keys for Caffeine are boxed ahead of time, so the baseline
 * pays no boxing. 1 and 2 threads; a lookup-only pair (lookup, retain, read one long, release; no copy) that
 * isolates the lookup and the reference count; and a view pair: a zero-copy {@link RangeCache#readView} through the
 * whole engine (object key to id, range checks, the store, metrics), reading the first and last long of the range,
 * beside Caffeine + a copy of the range + the same two longs read from the copy.
 *
 * <p>The smoke default is 4 KiB reads over 16 blocks; the full comparison is {@code -p readSize=4096,65536}, and a
 * larger working set {@code -p blocks=128}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@State(Scope.Benchmark)
public class L1HitBenchmark extends ShortRun
{
    private static final int BLOCK = 1024 * 1024;
    private static final String OBJECT = "blocks.bin";

    @Param({"4096"})
    int readSize;

    @Param({"16"})
    int blocks;

    RamBlockStore store;
    Cache<Long, byte[]> caffeine;
    long[] keys;
    Long[] boxedKeys;
    int[] offsets;
    long[] positions;
    Path root;
    RamBlockStore engineStore;
    RangeCache engine;

    /**
     * A reader's cursor into the shared key sequence and its destination buffer.
     */
    @State(Scope.Thread)
    public static class Reader extends SequenceCursor
    {
        byte[] destination;
        UnsafeBuffer destinationBuffer;

        /**
         * Allocates the destination.
         */
        @Setup(Level.Trial)
        public void allocate()
        {
            destination = new byte[64 * 1024];
            destinationBuffer = new UnsafeBuffer(destination);
        }
    }

    /**
     * Fills both caches with the same blocks and draws the key and offset sequence.
     */
    @Setup(Level.Trial)
    public void setUp() throws IOException
    {
        store = new RamBlockStore(new RamBlockStore.Context().blockSize(BLOCK).capacityBytes((long) blocks * BLOCK));
        caffeine = Caffeine.newBuilder().maximumSize(blocks).build();
        root = Files.createTempDirectory("offcache-l1-hit");
        final Random random = new Random(17);
        final byte[] content = new byte[BLOCK];
        try (OutputStream out = Files.newOutputStream(root.resolve(OBJECT)))
        {
            for (int b = 0; b < blocks; b++)
            {
                random.nextBytes(content);
                final long key = BlockKeys.pack(1000 + b, b);
                if (!store.put(key, new UnsafeBuffer(content), 0, BLOCK, FetchClass.DEMAND))
                {
                    throw new IllegalStateException("block " + b + " was not stored");
                }
                caffeine.put(key, content.clone());
                out.write(content);
            }
        }
        engineStore = RamBlockStore.create((long) blocks * BLOCK, BLOCK);
        engine = RangeCache.newBuilder().origin(new FileSystemOrigin(root, 1)).blockSize(BLOCK).store(engineStore)
            .build();
        final UnsafeBuffer warm = new UnsafeBuffer(new byte[BLOCK]);
        for (int b = 0; b < blocks; b++)
        {
            engine.read(OBJECT, (long) b * BLOCK, warm, 0, BLOCK);
        }
        if (engineStore.residentBlocks() != blocks)
        {
            throw new IllegalStateException("engine holds " + engineStore.residentBlocks() + " of " + blocks);
        }
        final ZipfKeys zipf = new ZipfKeys(blocks, 0.99, 23);
        keys = new long[SequenceCursor.SEQUENCE];
        boxedKeys = new Long[SequenceCursor.SEQUENCE];
        offsets = new int[SequenceCursor.SEQUENCE];
        positions = new long[SequenceCursor.SEQUENCE];
        for (int i = 0; i < SequenceCursor.SEQUENCE; i++)
        {
            final int b = zipf.next();
            keys[i] = BlockKeys.pack(1000 + b, b);
            boxedKeys[i] = keys[i];
            offsets[i] = random.nextInt(BLOCK / readSize) * readSize;
            positions[i] = (long) b * BLOCK + offsets[i];
        }
    }

    /**
     * Closes the stores and the engine; every slot goes back.
     *
     * @throws IOException if the temporary object cannot be deleted.
     */
    @TearDown(Level.Trial)
    public void tearDown() throws IOException
    {
        store.close();
        engine.close();
        if (store.liveSlots() != 0 || engineStore.liveSlots() != 0)
        {
            throw new IllegalStateException("slots leaked: " + store + ", " + engineStore);
        }
        BenchmarkFiles.deleteTree(root);
    }

    /**
     * Ours, one thread.
     *
     * @param reader the thread's cursor.
     * @return bytes copied.
     */
    @Benchmark
    @Threads(1)
    public int oursOneThread(final Reader reader)
    {
        return readOffcache(reader);
    }

    /**
     * Caffeine plus a copy, one thread.
     *
     * @param reader the thread's cursor.
     * @return bytes copied.
     */
    @Benchmark
    @Threads(1)
    public int baselineCaffeineOneThread(final Reader reader)
    {
        return readCaffeine(reader);
    }

    /**
     * Ours, two threads.
     *
     * @param reader the thread's cursor.
     * @return bytes copied.
     */
    @Benchmark
    @Threads(2)
    public int oursTwoThreads(final Reader reader)
    {
        return readOffcache(reader);
    }

    /**
     * Caffeine plus a copy, two threads.
     *
     * @param reader the thread's cursor.
     * @return bytes copied.
     */
    @Benchmark
    @Threads(2)
    public int baselineCaffeineTwoThreads(final Reader reader)
    {
        return readCaffeine(reader);
    }

    /**
     * Ours without the copy: lookup, retain, read one long through the zero-copy view, release.
     *
     * @param reader the thread's cursor.
     * @return the long read.
     */
    @Benchmark
    @Threads(1)
    public long oursLookupOneThread(final Reader reader)
    {
        final int i = reader.advance();
        final BlockRef ref = store.acquire(keys[i]);
        try
        {
            return ref.buffer().getLong(offsets[i]);
        }
        finally
        {
            ref.release();
        }
    }

    /**
     * Caffeine without the copy: lookup and read one byte of the array.
     *
     * @param reader the thread's cursor.
     * @return the byte read.
     */
    @Benchmark
    @Threads(1)
    public long baselineCaffeineLookupOneThread(final Reader reader)
    {
        final int i = reader.advance();
        return caffeine.getIfPresent(boxedKeys[i])[offsets[i]];
    }

    /**
     * Ours, a zero-copy view through the engine: {@code readView}, read the range's first and last long, release.
     *
     * @param reader the thread's cursor.
     * @return the longs read.
     */
    @Benchmark
    @Threads(1)
    public long oursViewOneThread(final Reader reader)
    {
        final int i = reader.advance();
        final BlockRef ref = engine.readView(OBJECT, positions[i], readSize);
        try
        {
            return ref.buffer().getLong(offsets[i]) + ref.buffer().getLong(offsets[i] + readSize - Long.BYTES);
        }
        finally
        {
            ref.release();
        }
    }

    /**
     * Caffeine plus a copy of the range, then the same two longs read from the copy.
     *
     * @param reader the thread's cursor.
     * @return the longs read.
     */
    @Benchmark
    @Threads(1)
    public long baselineCaffeineViewOneThread(final Reader reader)
    {
        readCaffeine(reader);
        return reader.destinationBuffer.getLong(0) + reader.destinationBuffer.getLong(readSize - Long.BYTES);
    }

    private int readOffcache(final Reader reader)
    {
        final int i = reader.advance();
        return store.read(keys[i], offsets[i], reader.destinationBuffer, 0, readSize);
    }

    private int readCaffeine(final Reader reader)
    {
        final int i = reader.advance();
        final byte[] block = caffeine.getIfPresent(boxedKeys[i]);
        System.arraycopy(block, offsets[i], reader.destination, 0, readSize);
        return readSize;
    }
}
