package dev.offcache.spark;

import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;

import org.apache.spark.scheduler.JobSucceeded$;
import org.apache.spark.scheduler.SparkListenerEvent;
import org.apache.spark.scheduler.SparkListenerJobEnd;
import org.apache.spark.scheduler.SparkListenerJobStart;
import org.apache.spark.scheduler.StageInfo;
import org.junit.jupiter.api.Test;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;

import dev.offcache.dataset.JobOutput;
import dev.offcache.spark.catalyst.SparkJobRunner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What {@link LosingAttempts} keeps per materialization is forgotten in every way a materialization can end,
 * including a job Spark refused before starting it (no job start and no job end on the bus). The bus is modelled in
 * order: events posted are delivered after those posted before them, as Spark's listener queues do.
 */
class LosingAttemptsTest
{
    private final List<SparkListenerEvent> queued = new ArrayList<>();
    private final LosingAttempts attempts = new LosingAttempts(new ExecutorDirectory(), queued::add);

    @Test
    void aJobRefusedBeforeItStartedIsForgottenOnceTheBusHasDeliveredWhatCameBefore()
    {
        final CompletableFuture<JobOutput> output = attempts.watching(
            (jobId, input) -> CompletableFuture.failedFuture(new IllegalStateException("refused at submission")))
            .run("spark-1", null);
        assertTrue(output.isCompletedExceptionally());
        assertEquals(1, attempts.tracked(), "still tracked until the bus has delivered the marker");
        deliver();
        assertEquals(0, attempts.tracked());
    }

    @Test
    void aJobThatStartedIsKeptUntilItsEndEvenWhenItsOutputIsKnownFirst()
    {
        final CompletableFuture<JobOutput> result = new CompletableFuture<>();
        attempts.watching((jobId, input) -> result).run("spark-2", null);
        queued.add(jobStart(7, "spark-2"));
        result.completeExceptionally(new IllegalStateException("a task failed four times"));
        deliver();
        assertEquals(1, attempts.tracked(), "its start came before the marker: its end is still to come");
        attempts.onJobEnd(new SparkListenerJobEnd(7, 0L, JobSucceeded$.MODULE$));
        assertEquals(0, attempts.tracked());
    }

    private void deliver()
    {
        final List<SparkListenerEvent> events = new ArrayList<>(queued);
        queued.clear();
        for (final SparkListenerEvent event : events)
        {
            if (event instanceof SparkListenerJobStart start)
            {
                attempts.onJobStart(start);
            }
            else
            {
                attempts.onOtherEvent(event);
            }
        }
    }

    private static SparkListenerJobStart jobStart(final int sparkJobId, final String jobId)
    {
        final Properties properties = new Properties();
        properties.setProperty(SparkJobRunner.JobProperty(), jobId);
        final Seq<StageInfo> stages = CollectionConverters.asScala(List.<StageInfo>of()).toSeq();
        return new SparkListenerJobStart(sparkJobId, 0L, stages, properties);
    }
}
