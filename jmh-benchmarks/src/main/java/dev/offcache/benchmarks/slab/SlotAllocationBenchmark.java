package dev.offcache.benchmarks.slab;

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

import dev.offcache.benchmarks.ShortRun;
import dev.offcache.core.slab.BlockRef;
import dev.offcache.core.slab.BlockSlab;
import org.agrona.BufferUtil;
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
 * Allocating and freeing one block: a {@link BlockSlab} slot (allocate, touch, release) against its baseline, a
 * {@link ByteBuffer#allocateDirect(int) direct buffer} freed explicitly with Agrona {@link BufferUtil#free}, each on
 * one thread and on two threads sharing the slab. Both touch one byte so the memory is really reached. Note that
 * {@code allocateDirect} zeroes the buffer (part of its cost) while a slab slot is handed out as it was left.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class SlotAllocationBenchmark extends ShortRun
{
    private static final int SLOTS = 8;

    /**
     * Block size in bytes.
     */
    @Param({"4096", "1048576"})
    public int slotSize;

    private BlockSlab slab;

    /**
     * Creates a slab with enough slots that no thread ever finds it exhausted.
     */
    @Setup(Level.Trial)
    public void setUp()
    {
        slab = BlockSlab.anonymous((long) SLOTS * slotSize, slotSize);
    }

    /**
     * Closes the slab; every slot must be back.
     */
    @TearDown(Level.Trial)
    public void tearDown()
    {
        slab.close();
    }

    /**
     * Slab slot allocate + touch + release, one thread.
     *
     * @return the slot index, so the work is not dead code.
     */
    @Benchmark
    @Threads(1)
    public int oursAllocateFree()
    {
        return allocateFromSlab();
    }

    /**
     * Slab slot allocate + touch + release, two threads on one slab.
     *
     * @return the slot index, so the work is not dead code.
     */
    @Benchmark
    @Threads(2)
    public int oursAllocateFreeTwoThreads()
    {
        return allocateFromSlab();
    }

    /**
     * Baseline: {@code ByteBuffer.allocateDirect} + touch + {@code BufferUtil.free}, one thread.
     *
     * @return the byte written, so the work is not dead code.
     */
    @Benchmark
    @Threads(1)
    public byte baselineDirectAllocateFree()
    {
        return allocateDirect();
    }

    /**
     * Baseline: {@code ByteBuffer.allocateDirect} + touch + {@code BufferUtil.free}, two threads.
     *
     * @return the byte written, so the work is not dead code.
     */
    @Benchmark
    @Threads(2)
    public byte baselineDirectAllocateFreeTwoThreads()
    {
        return allocateDirect();
    }

    private int allocateFromSlab()
    {
        final BlockRef ref = slab.tryAllocate();
        if (ref == null)
        {
            throw new IllegalStateException("slab exhausted: " + slab);
        }
        ref.buffer().putByte(0, (byte) 1);
        final int index = ref.slotIndex();
        ref.release();
        return index;
    }

    private byte allocateDirect()
    {
        final ByteBuffer buffer = ByteBuffer.allocateDirect(slotSize);
        buffer.put(0, (byte) 1);
        final byte value = buffer.get(0);
        BufferUtil.free(buffer);
        return value;
    }
}
