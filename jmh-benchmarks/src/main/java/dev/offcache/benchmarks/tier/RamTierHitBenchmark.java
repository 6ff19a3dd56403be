package dev.offcache.benchmarks.tier;

import java.io.IOException;
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
import dev.offcache.core.slab.BlockSlab;
import dev.offcache.range.store.BlockKeys;
import dev.offcache.range.store.FetchClass;
import dev.offcache.server.tier.ObjectName;
import dev.offcache.server.tier.TieredBlockStore;
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
 * The L2 server's RAM-tier hit: {@link TieredBlockStore#acquireInMemory} (what an event loop calls for every block
 * it sends from RAM), read one long of the block, release; keys drawn uniformly from the resident blocks, every
 * lookup a hit. Ours (the RAM tier's lookup: lock-free table, one CAS on the block's reference count, an access
 * recorded in a lossy ring for the LRU policy) beside the baseline: a Caffeine {@code Cache<Long, BlockRef>} over
 * the same slab slots (keys boxed ahead of time), plus the same retain, read and release. 1 and 2 threads.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@State(Scope.Benchmark)
public class RamTierHitBenchmark extends ShortRun
{
    private static final int BLOCK = 64 * 1024;

    @Param({"64"})
    int blocks;

    Path dir;
    TieredBlockStore store;
    BlockSlab slab;
    Cache<Long, BlockRef> caffeine;
    long[] keys;
    Long[] boxedKeys;

    /**
     * Fills the RAM tier and the Caffeine map with the same blocks and draws the key sequence.
     *
     * @throws IOException if the SSD directory cannot be made.
     */
    @Setup(Level.Trial)
    public void setUp() throws IOException
    {
        dir = Files.createTempDirectory("offcache-ram-hit");
        final ObjectName name = new ObjectName("bench", "blocks.bin");
        store = TieredBlockStore.open(new TieredBlockStore.Context()
            .blockSize(BLOCK)
            .ramCapacityBytes((long) blocks * BLOCK)
            .ssdCapacityBytes(64L << 20)
            .ssdDir(dir)
            .names((objectId) -> name));
        slab = BlockSlab.anonymous((long) blocks * BLOCK, BLOCK);
        caffeine = Caffeine.newBuilder().maximumSize(blocks).build();
        final Random random = new Random(29);
        final byte[] content = new byte[BLOCK];
        for (int b = 0; b < blocks; b++)
        {
            random.nextBytes(content);
            final long key = BlockKeys.pack(7, b);
            if (!store.put(key, new UnsafeBuffer(content), 0, BLOCK, FetchClass.DEMAND) || !store.inRam(key))
            {
                throw new IllegalStateException("block " + b + " is not in RAM");
            }
            final BlockRef slot = slab.tryAllocate();
            slot.buffer().putBytes(0, content);
            caffeine.put(key, slot.length(BLOCK));
        }
        keys = new long[SequenceCursor.SEQUENCE];
        boxedKeys = new Long[SequenceCursor.SEQUENCE];
        for (int i = 0; i < SequenceCursor.SEQUENCE; i++)
        {
            keys[i] = BlockKeys.pack(7, random.nextInt(blocks));
            boxedKeys[i] = keys[i];
        }
    }

    /**
     * Closes the store, frees the baseline's slots and deletes the SSD directory; no slot may leak.
     *
     * @throws IOException if the directory cannot be deleted.
     */
    @TearDown(Level.Trial)
    public void tearDown() throws IOException
    {
        store.close();
        caffeine.asMap().values().forEach(BlockRef::release);
        slab.close();
        if (store.liveSlots() != 0)
        {
            throw new IllegalStateException("slots leaked: " + store.liveSlots());
        }
        BenchmarkFiles.deleteTree(dir);
    }

    /**
     * Ours, one thread.
     *
     * @param reader the thread's cursor.
     * @return a long of the block.
     */
    @Benchmark
    @Threads(1)
    public long oursOneThread(final SequenceCursor reader)
    {
        return hitOffcache(reader);
    }

    /**
     * Caffeine plus the same reference work, one thread.
     *
     * @param reader the thread's cursor.
     * @return a long of the block.
     */
    @Benchmark
    @Threads(1)
    public long baselineCaffeineOneThread(final SequenceCursor reader)
    {
        return hitCaffeine(reader);
    }

    /**
     * Ours, two threads.
     *
     * @param reader the thread's cursor.
     * @return a long of the block.
     */
    @Benchmark
    @Threads(2)
    public long oursTwoThreads(final SequenceCursor reader)
    {
        return hitOffcache(reader);
    }

    /**
     * Caffeine plus the same reference work, two threads.
     *
     * @param reader the thread's cursor.
     * @return a long of the block.
     */
    @Benchmark
    @Threads(2)
    public long baselineCaffeineTwoThreads(final SequenceCursor reader)
    {
        return hitCaffeine(reader);
    }

    private long hitOffcache(final SequenceCursor reader)
    {
        final BlockRef ref = store.acquireInMemory(keys[reader.advance()]);
        try
        {
            return ref.buffer().getLong(8);
        }
        finally
        {
            ref.release();
        }
    }

    private long hitCaffeine(final SequenceCursor reader)
    {
        final BlockRef ref = caffeine.getIfPresent(boxedKeys[reader.advance()]);
        if (ref == null || !ref.tryRetain())
        {
            throw new IllegalStateException("baseline miss");
        }
        try
        {
            return ref.buffer().getLong(8);
        }
        finally
        {
            ref.release();
        }
    }
}
