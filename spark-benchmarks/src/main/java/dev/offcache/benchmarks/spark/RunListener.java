package dev.offcache.benchmarks.spark;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerExecutorRemoved;
import org.apache.spark.scheduler.SparkListenerJobStart;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.scheduler.SparkListenerTaskStart;
import org.apache.spark.scheduler.TaskLocality;

/**
 * What the driver sees of a run: jobs started, executor GC and CPU time reported by finished tasks
 * ({@code jvmGCTime}, {@code executorCpuTime}),
 * tasks started, and tasks per executor (all, and those that ran on their preferred executor, {@code PROCESS_LOCAL})
 * since the last {@link #resetTasks()}, and executors removed.
 */
final class RunListener extends SparkListener
{
    final AtomicLong jobs = new AtomicLong();
    final AtomicLong taskGcMs = new AtomicLong();
    final AtomicLong taskCpuNs = new AtomicLong();
    final AtomicLong executorsRemoved = new AtomicLong();
    final AtomicLong tasksStarted = new AtomicLong();
    private final Map<String, AtomicLong> tasksByExecutor = new ConcurrentHashMap<>();
    private final Map<String, AtomicLong> processLocalByExecutor = new ConcurrentHashMap<>();

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
