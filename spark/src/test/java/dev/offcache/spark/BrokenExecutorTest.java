package dev.offcache.spark;

import static dev.offcache.spark.LocalSparkApp.digest;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A broken offcache on a real Spark ({@code local[2]}): the executor part cannot start (its directory's parent is a
 * file). Every action on a cached frame gives the uncached rows from the lineage and never fails, and none runs a
 * materialization job, which could only fail on an executor without offcache.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class BrokenExecutorTest
{
    @TempDir
    Path root;

    @Test
    void anExecutorThatCannotStartLeavesEveryActionRight() throws Exception
    {
        final Path notADirectory = Files.writeString(root.resolve("a-file"), "not a directory");
        try (LocalSparkApp app = LocalSparkApp.start(notADirectory, Map.of()))
        {
            final Row expected = digest(app.source());
            final OffcacheCounters before = OffcacheDatasets.counters();
            final Dataset<Row> cached = OffcacheDatasets.cache(app.source());
            assertEquals(expected, digest(cached));
            assertEquals(expected, digest(cached.filter("id >= 0")));
            final OffcacheCounters after = OffcacheDatasets.counters();
            assertEquals(0, app.materializations(), "materialization jobs started");
            assertEquals(before.failedJobs(), after.failedJobs());
            assertEquals(before.uncached() + 2, after.uncached(), "actions computed from the lineage");
            assertNull(OffcacheDatasets.entryOf(cached));
        }
    }
}
