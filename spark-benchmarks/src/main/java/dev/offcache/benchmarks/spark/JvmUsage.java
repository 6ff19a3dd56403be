package dev.offcache.benchmarks.spark;

import java.lang.management.BufferPoolMXBean;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.util.List;

import org.apache.spark.SparkEnv;

/**
 * Memory and GC of this JVM, which in {@code local[N]} mode is the executor: heap used, the JDK's {@code direct}
 * and {@code mapped} buffer pools, Spark's storage memory on and off the heap, and GC time. A sampler thread keeps
 * the peaks between {@link #start()} and {@link #stop()}.
 */
final class JvmUsage
{
    private static final long MIB = 1 << 20;
    private static final MemoryMXBean MEMORY = ManagementFactory.getMemoryMXBean();
    private static final List<BufferPoolMXBean> POOLS = ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class);

    private volatile boolean running;
    private volatile long heapPeak;
    private volatile long directPeak;
    private volatile long mappedPeak;
    private Thread sampler;

    /** Starts sampling every 10 ms, peaks reset. */
    void start()
    {
        heapPeak = 0;
        directPeak = 0;
        mappedPeak = 0;
        running = true;
        sampler = new Thread(() ->
        {
            while (running)
            {
                sample();
                try
                {
                    Thread.sleep(10);
                }
                catch (final InterruptedException e)
                {
                    return;
                }
            }
        }, "jvm-usage-sampler");
        sampler.setDaemon(true);
        sampler.start();
    }

    /**
     * Stops sampling.
     *
     * @throws InterruptedException if interrupted while joining the sampler.
     */
    void stop() throws InterruptedException
    {
        running = false;
        sampler.join();
        sample();
    }

    private void sample()
    {
        heapPeak = Math.max(heapPeak, MEMORY.getHeapMemoryUsage().getUsed());
        directPeak = Math.max(directPeak, pool("direct"));
        mappedPeak = Math.max(mappedPeak, pool("mapped"));
    }

    long heapPeakMiB()
    {
        return heapPeak / MIB;
    }

    long directPeakMiB()
    {
        return directPeak / MIB;
    }

    long mappedPeakMiB()
    {
        return mappedPeak / MIB;
    }

    /**
     * Heap still in use after a full GC: what live objects (cached blocks among them) hold.
     *
     * @return MiB.
     */
    static long heapRetainedMiB()
    {
        System.gc();
        return MEMORY.getHeapMemoryUsage().getUsed() / MIB;
    }

    /**
     * Spark's storage memory used on the heap by this JVM's block manager.
     *
     * @return MiB.
     */
    static long storageOnHeapMiB()
    {
        return SparkEnv.get().memoryManager().onHeapStorageMemoryUsed() / MIB;
    }

    /**
     * Spark's storage memory used off the heap by this JVM's block manager.
     *
     * @return MiB.
     */
    static long storageOffHeapMiB()
    {
        return SparkEnv.get().memoryManager().offHeapStorageMemoryUsed() / MIB;
    }

    /**
     * GC time of this JVM so far, all collectors.
     *
     * @return milliseconds.
     */
    static long gcMillis()
    {
        long total = 0;
        for (final GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans())
        {
            total += Math.max(0, gc.getCollectionTime());
        }
        return total;
    }

    private static long pool(final String name)
    {
        for (final BufferPoolMXBean pool : POOLS)
        {
            if (name.equals(pool.getName()))
            {
                return pool.getMemoryUsed();
            }
        }
        return 0;
    }
}
