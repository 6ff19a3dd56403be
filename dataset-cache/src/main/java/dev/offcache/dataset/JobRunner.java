package dev.offcache.dataset;

import java.util.concurrent.CompletableFuture;

/**
 * The engine's side of materialization: run a subplan as its own job on the executors, writing its output stage's
 * shuffle partitions into each executor's shuffle store under {@code jobId}.
 *
 * @param <P> the engine's plan type.
 */
@FunctionalInterface
public interface JobRunner<P>
{
    /**
     * Submits a job. The returned future is the job's finish event: it completes with the output when the job
     * finished, or exceptionally when it failed. It must not block the caller.
     *
     * @param jobId the job id the coordinator chose (the registry's claim and the stage directories use it).
     * @param input the subplan to run.
     * @return completes when the job finishes.
     */
    CompletableFuture<JobOutput> run(String jobId, P input);
}
