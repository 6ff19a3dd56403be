package dev.offcache.spark;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerJobEnd;
import org.apache.spark.scheduler.SparkListenerEvent;
import org.apache.spark.scheduler.SparkListenerJobStart;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.scheduler.SparkListenerTaskStart;
import org.apache.spark.scheduler.StageInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import scala.jdk.javaapi.CollectionConverters;

import dev.offcache.dataset.JobOutput;
import dev.offcache.dataset.JobRunner;
import dev.offcache.registry.state.PartitionLocation;
import dev.offcache.spark.catalyst.MaterializeInput;
import dev.offcache.spark.catalyst.SparkJobRunner;

/**
 * Deletes the files of materialization task attempts that lost: a speculative duplicate, or an attempt that wrote
 * its partition and then failed (and was retried elsewhere), leaves a whole partition file on its executor that no
 * registry entry names. Each partition's winner is the location the job's output records (Spark hands a result
 * partition's first successful attempt to the job, and only that one); every other executor that ran an attempt of
 * that partition gets a deletion of the partition's path in its store, as soon as both the attempt's end and the
 * job's output are known, in either order. When the job fails, every attempt's file is deleted. Attempts on the
 * winner's own executor wrote the same path, so nothing is deleted there.
 *
 * <p>Fed by Spark's listener bus (job start for the materialization's stages, task start and end, job end) and by
 * the job runner it wraps (the output); forgets a job once it ended and no attempt of it still runs. A job Spark
 * refused before starting it (no job start, so no attempt and no job end) is forgotten by an {@link OutputKnown}
 * event this posts to the bus when its output is known: the bus delivers events in order, so a job start posted
 * before the output arrives before the marker, and a marker that finds no start means there was none.
 */
final class LosingAttempts extends SparkListener
{
    private static final Logger LOG = LoggerFactory.getLogger(LosingAttempts.class);
    /** The stage id a materialization's partitions are written under (one result stage per job). */
    private static final int STAGE = 0;

    private final ExecutorDirectory executors;
    private final Consumer<SparkListenerEvent> bus;
    private final Map<String, Job> jobs = new ConcurrentHashMap<>();
    private final Map<Integer, Job> bySparkStage = new ConcurrentHashMap<>();
    private final Map<Integer, Job> bySparkJob = new ConcurrentHashMap<>();

    /** One materialization: which executors ran attempts of each partition, and the winners once known. */
    private static final class Job
    {
        final String jobId;
        final Map<Integer, Set<String>> ranOn = new HashMap<>();
        Map<Integer, String> winners;
        boolean failed;
        boolean sparkJobEnded;
        int running;
        final Set<Integer> sparkStages = new HashSet<>();
        int sparkJobId = -1;

        Job(final String jobId)
        {
            this.jobId = jobId;
        }
    }

    /**
     * Posted to the listener bus once a materialization's output or failure is known, behind every event of its job.
     *
     * @param jobId the materialization.
     */
    record OutputKnown(String jobId) implements SparkListenerEvent
    {
        @Override
        public boolean logEvent()
        {
            return false; // ours alone: not for the event log
        }
    }

    /**
     * A tracker.
     *
     * @param executors where deletions go.
     * @param bus       posts an event to the listener bus this listener is on.
     */
    LosingAttempts(final ExecutorDirectory executors, final Consumer<SparkListenerEvent> bus)
    {
        this.executors = executors;
        this.bus = bus;
    }

    /**
     * Materializations tracked (started, or not yet known to have never started).
     *
     * @return the count.
     */
    int tracked()
    {
        return jobs.size();
    }

    /**
     * Wraps the job runner so each materialization's output (its winners) or failure reaches this.
     *
     * @param runner the runner.
     * @return the same runner, reporting here.
     */
    JobRunner<MaterializeInput> watching(final JobRunner<MaterializeInput> runner)
    {
        return (jobId, input) ->
        {
            jobs.computeIfAbsent(jobId, Job::new);
            final CompletableFuture<JobOutput> output;
            try
            {
                output = runner.run(jobId, input);
            }
            catch (final RuntimeException ex)
            {
                jobs.remove(jobId);  // never submitted: no attempt will report
                throw ex;
            }
            output.whenComplete((done, error) -> finished(jobId, done, error));
            return output;
        };
    }

    @Override
    public void onJobStart(final SparkListenerJobStart start)
    {
        final String jobId = start.properties() == null ? null :
            start.properties().getProperty(SparkJobRunner.JobProperty());
        if (jobId == null)
        {
            return;
        }
        final Job job = jobs.computeIfAbsent(jobId, Job::new);
        synchronized (job)
        {
            job.sparkJobId = start.jobId();
            for (final StageInfo stage : CollectionConverters.asJava(start.stageInfos()))
            {
                job.sparkStages.add(stage.stageId());
                bySparkStage.put(stage.stageId(), job);
            }
        }
        bySparkJob.put(start.jobId(), job);
    }

    @Override
    public void onTaskStart(final SparkListenerTaskStart start)
    {
        final Job job = bySparkStage.get(start.stageId());
        if (job != null)
        {
            synchronized (job)
            {
                job.running++;
            }
        }
    }

    @Override
    public void onTaskEnd(final SparkListenerTaskEnd end)
    {
        final Job job = bySparkStage.get(end.stageId());
        if (job == null)
        {
            return;
        }
        synchronized (job)
        {
            job.running--;
            job.ranOn.computeIfAbsent(end.taskInfo().index(), p -> new HashSet<>()).add(end.taskInfo().executorId());
            settle(job);
        }
    }

    @Override
    public void onJobEnd(final SparkListenerJobEnd end)
    {
        final Job job = bySparkJob.get(end.jobId());
        if (job != null)
        {
            synchronized (job)
            {
                job.sparkJobEnded = true;
                settle(job);
            }
        }
    }

    @Override
    public void onOtherEvent(final SparkListenerEvent event)
    {
        if (event instanceof OutputKnown known)
        {
            final Job job = jobs.get(known.jobId());
            if (job != null)
            {
                synchronized (job)
                {
                    if (job.sparkJobId < 0)
                    {
                        jobs.remove(job.jobId); // refused before it started: no attempt ran, nothing to delete
                    }
                }
            }
        }
    }

    private void finished(final String jobId, final JobOutput output, final Throwable error)
    {
        final Job job = jobs.get(jobId);
        if (job == null)
        {
            return;
        }
        try
        {
            bus.accept(new OutputKnown(jobId));
        }
        catch (final RuntimeException ex)
        {
            LOG.warn("offcache could not post to Spark's listener bus: {}", ex.toString());
        }
        synchronized (job)
        {
            final Map<Integer, String> winners = new HashMap<>();
            if (output != null)
            {
                for (final PartitionLocation location : output.locations())
                {
                    winners.put(location.partitionId(), location.executorId());
                }
            }
            job.failed = error != null;
            job.winners = winners;
            settle(job);
        }
    }

    /** Deletes what is known to have lost; forgets the job when nothing more can report. Holds the job's lock. */
    private void settle(final Job job)
    {
        if (job.winners == null)
        {
            return;
        }
        for (final var ran : job.ranOn.entrySet())
        {
            final String winner = job.failed ? null : job.winners.get(ran.getKey());
            for (final String executorId : ran.getValue())
            {
                if (!executorId.equals(winner))
                {
                    LOG.info("offcache: the attempt of partition {} of {} on executor {} lost (winner {}), its file " +
                        "is deleted", ran.getKey(), job.jobId, executorId, winner);
                    executors.deletePartition(executorId, job.jobId, STAGE, ran.getKey());
                }
            }
            ran.getValue().clear();
        }
        if (job.sparkJobEnded && job.running <= 0)
        {
            jobs.remove(job.jobId);
            job.sparkStages.forEach(bySparkStage::remove);
            bySparkJob.remove(job.sparkJobId);
        }
    }
}
