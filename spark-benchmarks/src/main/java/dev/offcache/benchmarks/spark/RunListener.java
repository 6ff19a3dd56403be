package dev.offcache.benchmarks.spark;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerExecutorRemoved;
import org.apache.spark.scheduler.SparkListenerJobStart;
import org.apache.spark.scheduler.SparkListenerTaskEnd;

/**
 * What the driver sees of a run: jobs started, executor GC time reported by finished tasks ({@code jvmGCTime}),
 * tasks per executor since the last {@link #resetTasks()}, and executors removed.
 */
final class RunListener extends SparkListener
{
    final AtomicLong jobs = new AtomicLong();
    final AtomicLong taskGcMs = new AtomicLong();
    final AtomicLong executorsRemoved = new AtomicLong();
    private final Map<String, AtomicLong> tasksByExecutor = new ConcurrentHashMap<>();

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
        }
        tasksByExecutor.computeIfAbsent(taskEnd.taskInfo().executorId(), e -> new AtomicLong()).incrementAndGet();
    }

    @Override
    public void onExecutorRemoved(final SparkListenerExecutorRemoved removed)
    {
        executorsRemoved.incrementAndGet();
    }

    /** Forgets the tasks counted per executor. */
    void resetTasks()
    {
        tasksByExecutor.clear();
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
