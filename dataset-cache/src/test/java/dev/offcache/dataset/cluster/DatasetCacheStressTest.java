package dev.offcache.dataset.cluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import dev.offcache.core.region.MappedRegion;
import dev.offcache.dataset.AbortPolicy;
import dev.offcache.dataset.CachedNode;
import dev.offcache.dataset.FetchFailedException;
import dev.offcache.dataset.OutputReader;
import dev.offcache.registry.retention.RetentionPolicy;
import dev.offcache.registry.state.CacheKey;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Bounded-time stress: 4 threads run actions on 4 cached datasets (2 sessions) while a chaos thread invalidates
 * keys and removes sessions at random — claims vanish under running jobs, entries under read-backs. Every action
 * that succeeds returns exactly its dataset's rows; the only failure allowed is a read-back that failed twice
 * (its data deleted twice in a row). Once the chaos stops every key reads right again, and after every session is
 * removed no partition file is left on any executor, nothing is pinned and no mapping is leaked.
 */
class DatasetCacheStressTest
{
    private static final OutputReader<long[]> ALL_ROWS = (schema, partitions) ->
    {
        int rows = 0;
        for (int i = 0; i < partitions.count(); i++)
        {
            rows += partitions.buffer(i).capacity() / Long.BYTES;
        }
        final long[] result = new long[rows];
        int at = 0;
        for (int i = 0; i < partitions.count(); i++)
        {
            at = ToyDataset.readRows(partitions.buffer(i), result, at);
        }
        return result;
    };

    @TempDir
    Path root;

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void actionsUnderRandomInvalidationAndSessionRemovalAreRightOrFailCleanly() throws Exception
    {
        final long mappingsBefore = MappedRegion.liveMappings();
        try (TestCluster cluster = new TestCluster(root, 3, 0, AbortPolicy.CLAIM_AND_MATERIALIZE,
            RetentionPolicy.none()))
        {
            final List<CachedNode<ToyDataset>> nodes = new ArrayList<>();
            final List<long[]> expected = new ArrayList<>();
            for (int k = 0; k < 4; k++)
            {
                final ToyDataset input = new ToyDataset(100 + k, 3 + k % 2, 512);
                nodes.add(new CachedNode<>(new CacheKey("s" + (k % 2), "c" + k), input));
                expected.add(input.computeDirectly());
            }
            final AtomicBoolean chaos = new AtomicBoolean(true);
            final AtomicInteger succeeded = new AtomicInteger();
            final AtomicInteger failedTwice = new AtomicInteger();
            final Thread chaosThread = new Thread(() ->
            {
                final SplittableRandom random = new SplittableRandom(7);
                while (chaos.get())
                {
                    if (random.nextInt(4) == 0)
                    {
                        cluster.registry.removeSession("s" + random.nextInt(2)).join();
                    }
                    else
                    {
                        cluster.registry.invalidate(nodes.get(random.nextInt(nodes.size())).key()).join();
                    }
                    try
                    {
                        Thread.sleep(random.nextInt(1, 15));
                    }
                    catch (final InterruptedException ex)
                    {
                        return;
                    }
                }
            }, "chaos");
            chaosThread.start();

            final List<Thread> actors = new ArrayList<>();
            final List<Throwable> wrong = new ArrayList<>();
            for (int t = 0; t < 4; t++)
            {
                final int seed = t;
                final Thread actor = new Thread(() ->
                {
                    final SplittableRandom random = new SplittableRandom(seed);
                    for (int i = 0; i < 25; i++)
                    {
                        final int k = random.nextInt(nodes.size());
                        try
                        {
                            final long[] rows = cluster.coordinator.execute(nodes.get(k), ALL_ROWS)
                                .get(30, TimeUnit.SECONDS);
                            assertArrayEquals(expected.get(k), rows, "key " + k);
                            succeeded.incrementAndGet();
                        }
                        catch (final ExecutionException ex)
                        {
                            if (ex.getCause() instanceof FetchFailedException)
                            {
                                failedTwice.incrementAndGet();
                            }
                            else
                            {
                                synchronized (wrong)
                                {
                                    wrong.add(ex.getCause());
                                }
                            }
                        }
                        catch (final Throwable ex)
                        {
                            synchronized (wrong)
                            {
                                wrong.add(ex);
                            }
                        }
                    }
                }, "actor-" + t);
                actor.start();
                actors.add(actor);
            }
            for (final Thread actor : actors)
            {
                actor.join(60_000);
                assertTrue(!actor.isAlive(), actor.getName() + " finished");
            }
            chaos.set(false);
            chaosThread.join(10_000);
            assertTrue(wrong.isEmpty(), "wrong results or unexpected failures: " + wrong);
            assertEquals(100, succeeded.get() + failedTwice.get());
            assertTrue(succeeded.get() >= 50, "most actions succeed: " + succeeded + " " +
                cluster.coordinator.counters());

            final List<CompletableFuture<long[]>> settle = new ArrayList<>();
            for (final CachedNode<ToyDataset> node : nodes)
            {
                settle.add(cluster.coordinator.execute(node, ALL_ROWS));
            }
            for (int k = 0; k < nodes.size(); k++)
            {
                assertArrayEquals(expected.get(k), settle.get(k).get(30, TimeUnit.SECONDS));
            }

            cluster.registry.removeSession("s0").join();
            cluster.registry.removeSession("s1").join();
            assertTrue(cluster.cleanup.awaitIdle(10_000));
            assertTrue(cluster.registry.pinnedStages().isEmpty());
            for (final String executor : cluster.executors.keySet())
            {
                assertEquals(List.of(), dataFiles(root.resolve(executor)), "files left on " + executor);
            }
            System.out.println("stress: " + cluster.coordinator.counters() + " succeeded=" + succeeded +
                " failedTwice=" + failedTwice + " jobs=" + cluster.jobs.started());
            assertTrue(cluster.jobs.started() > 2 * nodes.size(), "the chaos forced re-materializations");
        }
        assertEquals(mappingsBefore, MappedRegion.liveMappings(), "every read-back mapping unmapped");
    }

    private static List<Path> dataFiles(final Path workDir) throws IOException
    {
        try (Stream<Path> files = Files.walk(workDir))
        {
            return files.filter(Files::isRegularFile).toList();
        }
    }
}
