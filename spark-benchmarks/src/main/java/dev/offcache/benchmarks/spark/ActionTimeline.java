package dev.offcache.benchmarks.spark;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;

import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.scheduler.TaskInfo;
import org.apache.spark.scheduler.TaskLocality;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * Where a warm action's wall time goes on {@code local-cluster[2,1,1024]}, task by task, for one variant and one of
 * the warm benchmark's queries: before the first task starts (planning, the registry's resolve, the task binary's
 * broadcast), inside stages (first launch to last finish of each stage's tasks), between stages, and after the last
 * task (the result's collection and check), with the tasks' executor CPU and locality. A diagnosis beside
 * {@link SparkCacheWarmBenchmark}, whose score is the wall time alone; not a benchmark (one JVM, no forks, no
 * intervals). Run it from the benchmark jar:
 * {@code java -cp spark-benchmarks.jar dev.offcache.benchmarks.spark.ActionTimeline offcache join 12}; it runs in a
 * child JVM started with offcache's and Spark's JVM flags ({@code SparkBenchmarkMain.jvmFlags()}, as JMH's forks
 * are), to which this JVM's {@code spark.*} system properties are passed on.
 */
public final class ActionTimeline
{
    private static final long ROWS = 2_000_000;
    private static final int PARTITIONS = 8;
    private static final int WARM_ACTIONS = 2;
    /** Set in the child JVM, which runs the actions. */
    private static final String FORKED = "offcache.timeline.forked";

    private ActionTimeline()
    {
    }

    /** One finished task, as the driver's listener saw it (times in epoch ms). */
    private record Task(int stage, String executor, long launchMs, long finishMs, boolean processLocal, long cpuNs)
    {
    }

    /**
     * Runs the query {@code iterations} times after a materializing first action and {@value #WARM_ACTIONS} warm
     * ones, printing each action's timeline and the means.
     *
     * @param args the variant ({@code offcache}, {@code cache}, ...: {@link CacheVariant}), the query
     *             ({@code aggregate}, {@code filter} or {@code join}) and the number of timed actions.
     * @throws IOException          if the local cluster's Spark home cannot be made.
     * @throws InterruptedException if interrupted while waiting for the executors.
     */
    public static void main(final String[] args) throws IOException, InterruptedException
    {
        if (args.length != 3)
        {
            throw new IllegalArgumentException("usage: ActionTimeline <impl> <aggregate|filter|join> <actions>");
        }
        final String query = args[1];
        if (!List.of("aggregate", "filter", "join").contains(query))
        {
            throw new IllegalArgumentException("query must be aggregate, filter or join, not '" + query + "'");
        }
        CacheVariant.of(args[0]); // an unknown variant is refused here, before a JVM and a cluster start
        final int actions = positive(args[2]);
        if (!Boolean.getBoolean(FORKED))
        {
            System.exit(fork(args));
        }
        final ConcurrentLinkedQueue<Task> tasks = new ConcurrentLinkedQueue<>();
        try (SparkRun run = SparkRun.localCluster(args[0], ROWS, PARTITIONS))
        {
            run.spark.sparkContext().addSparkListener(new SparkListener()
            {
                @Override
                public void onTaskEnd(final SparkListenerTaskEnd end)
                {
                    final TaskInfo info = end.taskInfo();
                    tasks.add(new Task(end.stageId(), info.executorId(), info.launchTime(), info.finishTime(),
                        info.taskLocality() == TaskLocality.PROCESS_LOCAL(),
                        end.taskMetrics() == null ? 0 : end.taskMetrics().executorCpuTime()));
                }
            });
            final Dataset<Row> cached = run.recache(null);
            run.aggregate(cached);
            for (int i = 0; i < WARM_ACTIONS; i++)
            {
                run(run, cached, query);
            }
            final long[] sums = new long[6];
            for (int i = 0; i < actions; i++)
            {
                run.awaitEvents();
                tasks.clear();
                final long start = System.currentTimeMillis();
                run(run, cached, query);
                final long end = System.currentTimeMillis();
                run.awaitEvents();
                final long[] timeline = timeline(tasks, start, end);
                for (int k = 0; k < sums.length; k++)
                {
                    sums[k] += timeline[k];
                }
                System.out.println(format("action " + i, timeline) + stages(tasks));
            }
            for (int k = 0; k < sums.length; k++)
            {
                sums[k] /= actions;
            }
            System.out.println(format(args[0] + " " + query + " mean of " + actions, sums));
            run.variant.release(cached);
        }
    }

    private static int positive(final String actions)
    {
        try
        {
            final int count = Integer.parseInt(actions);
            if (count > 0)
            {
                return count;
            }
        }
        catch (final NumberFormatException ignored)
        {
            // refused below, with the same message as a count that is not positive
        }
        throw new IllegalArgumentException("actions must be a whole number above 0, not '" + actions + "'");
    }

    /** Runs this tool in a child JVM with the flags Spark needs on Java 17; returns its exit code. */
    private static int fork(final String[] args) throws IOException, InterruptedException
    {
        final List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add(SparkBenchmarkMain.DRIVER_HEAP);
        command.addAll(Arrays.asList(SparkBenchmarkMain.jvmFlags().split("\\s+")));
        for (final String name : System.getProperties().stringPropertyNames())
        {
            if (name.startsWith("spark."))
            {
                command.add("-D" + name + "=" + System.getProperty(name));
            }
        }
        command.add("-D" + FORKED + "=true");
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), ActionTimeline.class.getName()));
        command.addAll(Arrays.asList(args));
        return new ProcessBuilder(command).inheritIO().start().waitFor();
    }

    private static List<Row> run(final SparkRun run, final Dataset<Row> cached, final String query)
    {
        return switch (query)
        {
            case "filter" -> run.filter(cached);
            case "join" -> run.join(cached);
            default -> run.aggregate(cached);
        };
    }

    /** Wall, before the first task, in stages, between stages, after the last task (ms), task CPU (ns). */
    private static long[] timeline(final Collection<Task> tasks, final long startMs, final long endMs)
    {
        long first = Long.MAX_VALUE;
        long last = startMs;
        long cpu = 0;
        for (final Task task : tasks)
        {
            first = Math.min(first, task.launchMs());
            last = Math.max(last, task.finishMs());
            cpu += task.cpuNs();
        }
        if (tasks.isEmpty())
        {
            first = endMs; // an action that ran no task: all of it counts as before the first task
            last = endMs;
        }
        long inStages = 0;
        for (final long[] span : spans(tasks).values())
        {
            inStages += span[1] - span[0];
        }
        return new long[] {endMs - startMs, first - startMs, inStages, last - first - inStages, endMs - last, cpu};
    }

    /** Per stage: first launch, last finish, tasks, tasks on their preferred executor. */
    private static Map<Integer, long[]> spans(final Collection<Task> tasks)
    {
        final Map<Integer, long[]> spans = new TreeMap<>();
        for (final Task task : tasks)
        {
            final long[] span = spans.computeIfAbsent(task.stage(), s -> new long[] {Long.MAX_VALUE, 0, 0, 0});
            span[0] = Math.min(span[0], task.launchMs());
            span[1] = Math.max(span[1], task.finishMs());
            span[2]++;
            span[3] += task.processLocal() ? 1 : 0;
        }
        return spans;
    }

    private static String stages(final Collection<Task> tasks)
    {
        final List<String> out = new ArrayList<>();
        spans(tasks).forEach((stage, span) -> out.add(String.format(Locale.ROOT, "%d tasks (%d process-local) %d ms",
            span[2], span[3], span[1] - span[0])));
        return "; stages: " + String.join(", ", out);
    }

    private static String format(final String what, final long[] timeline)
    {
        return String.format(Locale.ROOT, "%s: %d ms = %d before the first task + %d in stages + %d between + %d " +
            "after the last; task CPU %.0f ms", what, timeline[0], timeline[1], timeline[2], timeline[3], timeline[4],
            timeline[5] / 1e6);
    }
}
