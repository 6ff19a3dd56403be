package dev.offcache.dataset;

import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.offcache.core.config.ConcurrentConcludeException;
import dev.offcache.registry.front.CacheRegistry;
import dev.offcache.registry.journal.JournalChangeLog;
import dev.offcache.registry.state.BeginOutcome;
import dev.offcache.registry.state.CacheKey;
import dev.offcache.registry.state.StageRef;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The coordinator's and the resolver's contexts configure one component each: given to a second launch they are
 * refused with {@link ConcurrentConcludeException} before anything starts, and the first component still answers.
 */
class CoordinatorContextConcludeOnceTest
{
    private static final CacheKey KEY = new CacheKey("session", "cache");
    private static final long TIMEOUT_S = 20;

    @TempDir
    Path dir;

    @Test
    void aSecondLaunchIsRefusedAndTheFirstCoordinatorStillWorks() throws Exception
    {
        final JournalChangeLog log = JournalChangeLog.open(new JournalChangeLog.Context().directory(dir.resolve("log"))
            .segmentSize(64 * 1024));
        try (CacheRegistry registry = CacheRegistry.launch(new CacheRegistry.Context().changeLog(log));
            StageCleanup cleanup = new StageCleanup(new NoExecutors()))
        {
            final CachedDatasetCoordinator.Context<String> coordinatorContext =
                new CachedDatasetCoordinator.Context<String>()
                    .resolver(new DatasetResolver.Context<String>()
                        .registry(registry)
                        .jobRunner((jobId, input) ->
                            CompletableFuture.failedFuture(new IllegalStateException("no jobs")))
                        .cleanup(cleanup))
                    .opener(new PartitionOpener.Context().remoteExecutors((executorId) -> null));
            final DatasetResolver.Context<String> resolverContext = new DatasetResolver.Context<String>()
                .registry(registry)
                .jobRunner((jobId, input) -> CompletableFuture.failedFuture(new IllegalStateException("no jobs")))
                .cleanup(cleanup);
            try (CachedDatasetCoordinator<String> coordinator = CachedDatasetCoordinator.launch(coordinatorContext);
                DatasetResolver<String> resolver = DatasetResolver.launch(resolverContext))
            {
                assertRefused("CachedDatasetCoordinator.Context",
                    () -> CachedDatasetCoordinator.launch(coordinatorContext));
                assertRefused("DatasetResolver.Context", () -> DatasetResolver.launch(resolverContext));
                assertInstanceOf(BeginOutcome.Claimed.class,
                    registry.beginMaterialization(KEY, "job-1").get(TIMEOUT_S, TimeUnit.SECONDS));
                assertNull(coordinator.executorLost("exec-gone").get(TIMEOUT_S, TimeUnit.SECONDS));
                assertNull(resolver.executorLost("exec-gone").get(TIMEOUT_S, TimeUnit.SECONDS));
                assertEquals(new BeginOutcome.AlreadyPending("job-1"),
                    registry.beginMaterialization(KEY, "job-2").get(TIMEOUT_S, TimeUnit.SECONDS));
            }
            assertTrue(log.recordsAppended() >= 1, "the change log took the claim");
        }
    }

    private static void assertRefused(final String context, final org.junit.jupiter.api.function.Executable second)
    {
        final ConcurrentConcludeException refused = assertThrows(ConcurrentConcludeException.class, second);
        assertTrue(refused.getMessage().startsWith(context + " is already concluded"), refused.getMessage());
    }

    /** A scheduler with no executors yet: the cleanup has nothing to delete. */
    private static final class NoExecutors implements ExecutorStages
    {
        @Override
        public Collection<String> executorIds()
        {
            return List.of();
        }

        @Override
        public void deleteJob(final String executorId, final String jobId, final Set<StageRef> keep)
        {
            throw new AssertionError("no executor to delete job " + jobId + " on: " + executorId);
        }

        @Override
        public void deleteStage(final String executorId, final StageRef stage)
        {
            throw new AssertionError("no executor to delete stage " + stage + " on: " + executorId);
        }
    }
}
