package dev.offcache.benchmarks.spark;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.spark.executor.ExecutorMetrics;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerExecutorMetricsUpdate;
import org.apache.spark.scheduler.SparkListenerExecutorRemoved;
import org.apache.spark.scheduler.SparkListenerJobStart;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.scheduler.SparkListenerTaskStart;
import org.apache.spark.scheduler.TaskLocality;

/**
 * What the driver sees of a run: jobs started, executor GC and CPU time reported by finished tasks
 * ({@code jvmGCTime}, {@code executorCpuTime}),
 * tasks started, and tasks per executor (all, and those that ran on their preferred executor, {@code PROCESS_LOCAL})
 * since the last {@link #resetTasks()}, executors removed, and the peaks of the executor JVMs' memory that their
 * heartbeats report (Spark's executor metrics, of executors apart from the driver: a local cluster's) since the last
 * {@link #resetExecutorPeaks()}.
 */
final class RunListener extends SparkListener
{
    /** The executor id of the driver ({@code SparkContext.DRIVER_IDENTIFIER}), the executor of local mode. */
    private static final String DRIVER = "driver";

    final AtomicLong jobs = new AtomicLong();
    final AtomicLong taskGcMs = new AtomicLong();
    final AtomicLong taskCpuNs = new AtomicLong();
    final AtomicLong executorsRemoved = new AtomicLong();
    final AtomicLong tasksStarted = new AtomicLong();
    private final Map<String, AtomicLong> tasksByExecutor = new ConcurrentHashMap<>();
    private final Map<String, AtomicLong> processLocalByExecutor = new ConcurrentHashMap<>();
    private final Map<String, AtomicLong> metricUpdatesByExecutor = new ConcurrentHashMap<>();
    private final AtomicLong executorHeapPeak = new AtomicLong();
    private final AtomicLong executorDirectPeak = new AtomicLong();
    private final AtomicLong executorMappedPeak = new AtomicLong();
    private final Map<String, long[]> storageByExecutor = new ConcurrentHashMap<>();

    @Override
    public void onJobStart(final SparkListenerJobStart jobStart)
    {
        jobs.incrementAndGet();
    }

    @Override
    public void onTaskEnd(final SparkListenerTaskEnd taskEnd)
    {
        if (taskEnd.taskMetrics() != null)
        {
            taskGcMs.addAndGet(taskEnd.taskMetrics().jvmGCTime());
            taskCpuNs.addAndGet(taskEnd.taskMetrics().executorCpuTime());
        }
        final String executor = taskEnd.taskInfo().executorId();
        tasksByExecutor.computeIfAbsent(executor, e -> new AtomicLong()).incrementAndGet();
        if (taskEnd.taskInfo().taskLocality() == TaskLocality.PROCESS_LOCAL())
        {
            processLocalByExecutor.computeIfAbsent(executor, e -> new AtomicLong()).incrementAndGet();
        }
    }

    @Override
    public void onTaskStart(final SparkListenerTaskStart taskStart)
    {
        tasksStarted.incrementAndGet();
    }

    @Override
    public void onExecutorRemoved(final SparkListenerExecutorRemoved removed)
    {
        executorsRemoved.incrementAndGet();
        // A removed executor sends no more heartbeats and holds no storage.
        metricUpdatesByExecutor.remove(removed.executorId());
        storageByExecutor.remove(removed.executorId());
    }

    @Override
    public void onExecutorMetricsUpdate(final SparkListenerExecutorMetricsUpdate update)
    {
        if (DRIVER.equals(update.execId()))
        {
            return;
        }
        // One entry per stage that ran on the executor since its last heartbeat: the peaks polled during it.
        final scala.collection.Iterator<ExecutorMetrics> peaks = update.executorUpdates().valuesIterator();
        long[] storage = null;
        while (peaks.hasNext())
        {
            final ExecutorMetrics metrics = peaks.next();
            executorHeapPeak.accumulateAndGet(metrics.getMetricValue("JVMHeapMemory"), Math::max);
            executorDirectPeak.accumulateAndGet(metrics.getMetricValue("DirectPoolMemory"), Math::max);
            executorMappedPeak.accumulateAndGet(metrics.getMetricValue("MappedPoolMemory"), Math::max);
            storage = null == storage ? new long[2] : storage;
            storage[0] = Math.max(storage[0], metrics.getMetricValue("OnHeapStorageMemory"));
            storage[1] = Math.max(storage[1], metrics.getMetricValue("OffHeapStorageMemory"));
        }
        if (null != storage)
        {
            storageByExecutor.put(update.execId(), storage);
        }
        metricUpdatesByExecutor.computeIfAbsent(update.execId(), e -> new AtomicLong()).incrementAndGet();
    }

    /** Forgets the executors' memory peaks. */
    void resetExecutorPeaks()
    {
        executorHeapPeak.set(0);
        executorDirectPeak.set(0);
        executorMappedPeak.set(0);
    }

    /**
     * Waits until every executor that reported metrics so far has sent one more heartbeat or was removed, so the
     * peaks of the stages that ended before this call have arrived.
     *
     * @param timeoutMs how long to wait at most.
     * @throws InterruptedException if interrupted.
     */
    void awaitExecutorHeartbeats(final long timeoutMs) throws InterruptedException
    {
        final Map<String, Long> seen = new HashMap<>();
        metricUpdatesByExecutor.forEach((e, n) -> seen.put(e, n.get()));
        final long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
        for (final Map.Entry<String, Long> e : seen.entrySet())
        {
            AtomicLong updates;
            while ((updates = metricUpdatesByExecutor.get(e.getKey())) != null && updates.get() == e.getValue())
            {
                if (System.nanoTime() > deadline)
                {
                    throw new IllegalStateException("executor " + e.getKey() + " sent no heartbeat in " +
                        timeoutMs + " ms");
                }
                Thread.sleep(20);
            }
        }
    }

    /** Peak heap used by one executor JVM since {@link #resetExecutorPeaks()}, bytes (the largest of any). */
    long executorHeapPeak()
    {
        return executorHeapPeak.get();
    }

    /** Peak of one executor JVM's direct buffer pool since {@link #resetExecutorPeaks()}, bytes. */
    long executorDirectPeak()
    {
        return executorDirectPeak.get();
    }

    /** Peak of one executor JVM's mapped buffer pool since {@link #resetExecutorPeaks()}, bytes. */
    long executorMappedPeak()
    {
        return executorMappedPeak.get();
    }

    /**
     * Spark's storage memory of every executor JVM, as their last heartbeats that followed a stage reported it.
     *
     * @param offHeap off the heap, else on it.
     * @return bytes, summed over executors.
     */
    long executorStorage(final boolean offHeap)
    {
        long sum = 0;
        for (final long[] storage : storageByExecutor.values())
        {
            sum += storage[offHeap ? 1 : 0];
        }
        return sum;
    }

    /** Forgets the tasks counted per executor. */
    void resetTasks()
    {
        tasksByExecutor.clear();
        processLocalByExecutor.clear();
        tasksStarted.set(0);
    }

    /**
     * Tasks finished per executor since {@link #resetTasks()}.
     *
     * @return executor id to count, a copy.
     */
    Map<String, Long> tasksByExecutor()
    {
        final Map<String, Long> out = new HashMap<>();
        tasksByExecutor.forEach((e, n) -> out.put(e, n.get()));
        return out;
    }

    /**
     * Tasks finished per executor since {@link #resetTasks()} that ran on their preferred executor.
     *
     * @return executor id to count, a copy.
     */
    Map<String, Long> processLocalByExecutor()
    {
        final Map<String, Long> out = new HashMap<>();
        processLocalByExecutor.forEach((e, n) -> out.put(e, n.get()));
        return out;
    }

    /**
     * The executor that ran the most tasks since {@link #resetTasks()}: after a materialization, the one holding
     * the most cached partitions.
     *
     * @return its id, or {@code null} if no task ran.
     */
    String busiestExecutor()
    {
        String busiest = null;
        long most = -1;
        for (final Map.Entry<String, AtomicLong> e : tasksByExecutor.entrySet())
        {
            if (e.getValue().get() > most)
            {
                most = e.getValue().get();
                busiest = e.getKey();
            }
        }
        return busiest;
    }
}
