package dev.offcache.spark;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import dev.offcache.registry.front.CacheRegistry;
import dev.offcache.registry.journal.JournalChangeLog;
import dev.offcache.registry.state.CacheKey;
import dev.offcache.registry.state.Materialized;
import dev.offcache.registry.state.PartitionLocation;

import static dev.offcache.spark.LocalSparkApp.PARTITIONS;
import static dev.offcache.spark.LocalSparkApp.digest;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code spark.offcache.registry=journal} across a driver restart, on a real Spark ({@code local[2]}): a restarted
 * driver knows the entries its journal holds; those whose files went with the old application degrade to a miss
 * (the action gives the right rows from the lineage, never fails, and the dataset is materialized once again), and an
 * application that stopped cleanly left no entry behind.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class JournalRegistryRestartTest
{
    private static final long WAIT_S = 30;

    @TempDir
    Path root;

    @Test
    void aRestartedDriverKnowsItsEntriesAndWhatItCannotReadDegradesToOneRematerialization() throws Exception
    {
        final Path journal = root.resolve("journal");
        final Path crashImage = root.resolve("journal-as-a-crash-left-it");
        final CacheKey key;
        final Materialized first;
        final Row expected;
        try (LocalSparkApp app = LocalSparkApp.start(root.resolve("executor-1"), journalAt(journal)))
        {
            final Dataset<Row> cached = OffcacheDatasets.cache(app.source());
            expected = digest(app.source());
            assertEquals(expected, digest(cached));
            assertEquals(1, app.materializations());
            assertEquals(expected, digest(cached));
            assertEquals(1, app.materializations(), "a hit");
            key = LocalSparkApp.keyOf(cached);
            first = assertInstanceOf(Materialized.class, OffcacheDatasets.entryOf(cached));
            // Every journal record is written through (fdatasync) before the registry answers: the directory as
            // it is now is what a driver killed at this point leaves behind.
            copyDirectory(journal, crashImage);
        }
        for (final PartitionLocation location : first.locations())
        {
            assertFalse(Files.exists(Path.of(location.path())), "gone with the old application: " + location.path());
        }

        try (LocalSparkApp app = LocalSparkApp.start(root.resolve("executor-2"), journalAt(crashImage)))
        {
            final OffcacheDriver driver = OffcacheDriver.current();
            final Materialized recovered =
                assertInstanceOf(Materialized.class, driver.lookup(key).get(WAIT_S, TimeUnit.SECONDS));
            assertEquals(first.jobId(), recovered.jobId(), "the restarted driver knows the entry");
            assertEquals(first.locations(), recovered.locations());

            final Dataset<Row> again = LocalSparkApp.cachedUnder(key, app.source());
            final OffcacheCounters before = OffcacheDatasets.counters();
            assertEquals(expected, digest(again), "the unreadable entry's partitions come from the lineage");
            final OffcacheCounters after = OffcacheDatasets.counters();
            assertEquals(PARTITIONS, after.recomputes() - before.recomputes());
            assertEquals(1, after.hits() - before.hits(), "the recovered entry validated (same executor id)");
            assertEquals(0, app.materializations());
            awaitDropped(driver, key);

            assertEquals(expected, digest(again));
            assertEquals(1, app.materializations(), "materialized once again");
            final Materialized rebuilt = assertInstanceOf(Materialized.class, OffcacheDatasets.entryOf(again));
            assertNotEquals(first.jobId(), rebuilt.jobId());
            assertEquals(expected, digest(again));
            assertEquals(1, app.materializations(), "and then a hit");
            assertEquals(PARTITIONS, OffcacheDatasets.counters().recomputes() - before.recomputes(),
                "the new materialization reads whole");
        }

        // The application that stopped cleanly removed its session's entries (and files) through the journal.
        try (CacheRegistry registry = CacheRegistry.launch(new CacheRegistry.Context()
            .changeLog(JournalChangeLog.open(new JournalChangeLog.Context().directory(journal)))))
        {
            assertNull(registry.lookup(key).get(WAIT_S, TimeUnit.SECONDS), "no entry left by a clean stop");
        }
    }

    private static Map<String, String> journalAt(final Path dir)
    {
        return Map.of(OffcacheSettings.REGISTRY, "journal", OffcacheSettings.JOURNAL_DIR, dir.toString());
    }

    private static void awaitDropped(final OffcacheDriver driver, final CacheKey key) throws Exception
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_S);
        while (driver.lookup(key).get(WAIT_S, TimeUnit.SECONDS) != null && System.nanoTime() < deadline)
        {
            Thread.sleep(20);
        }
        assertNull(driver.lookup(key).get(WAIT_S, TimeUnit.SECONDS), "the unreadable entry is dropped");
    }

    private static void copyDirectory(final Path from, final Path to) throws IOException
    {
        int copied = 0;
        try (Stream<Path> paths = Files.walk(from))
        {
            for (final Path path : paths.toList())
            {
                final Path target = to.resolve(from.relativize(path).toString());
                if (Files.isDirectory(path))
                {
                    Files.createDirectories(target);
                }
                else
                {
                    Files.copy(path, target, StandardCopyOption.COPY_ATTRIBUTES);
                    copied++;
                }
            }
        }
        assertTrue(copied > 0, "journal files copied");
    }
}
