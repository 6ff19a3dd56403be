package dev.offcache.spark;

import java.nio.file.Files;
import java.nio.file.Path;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.offcache.core.shuffle.PartitionId;
import dev.offcache.core.shuffle.PartitionWriter;
import dev.offcache.core.shuffle.PinSet;
import dev.offcache.core.shuffle.ShufflePartitionStore;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Deleting a losing or failed attempt's partition leaves no empty stage or job directory behind, and never touches
 * a partition still there or the store's own directory.
 */
class ExecutorDirectoryTest
{
    @TempDir
    Path root;

    @Test
    void theLastPartitionDeletedTakesItsStageAndJobDirectoriesWithIt()
    {
        final ShufflePartitionStore store = new ShufflePartitionStore(root.resolve("executor-1"), PinSet.NONE);
        write(store, new PartitionId("spark-job-1", 0, 0));
        write(store, new PartitionId("spark-job-1", 0, 1));
        final Path stage = store.pathOf(new PartitionId("spark-job-1", 0, 0)).getParent();

        ExecutorDirectory.deletePartition(store, "spark-job-1", 0, 0);
        assertFalse(store.exists(new PartitionId("spark-job-1", 0, 0)));
        assertTrue(store.exists(new PartitionId("spark-job-1", 0, 1)), "the other partition stays");
        assertTrue(Files.isDirectory(stage), "a stage that still holds a file stays");

        ExecutorDirectory.deletePartition(store, "spark-job-1", 0, 1);
        assertFalse(Files.exists(stage), "the emptied stage directory goes");
        assertFalse(Files.exists(stage.getParent()), "and the emptied job directory");
        assertTrue(Files.isDirectory(store.workDir()), "the store's own directory stays");

        // An attempt killed before it committed left its stage directory empty: deleting its partition takes it.
        try (PartitionWriter killed = store.openWriter(new PartitionId("spark-job-2", 0, 0)))
        {
            killed.abort();
        }
        assertTrue(Files.isDirectory(store.workDir().resolve("spark-job-2")));
        ExecutorDirectory.deletePartition(store, "spark-job-2", 0, 0);
        assertFalse(Files.exists(store.workDir().resolve("spark-job-2")));
    }

    private static void write(final ShufflePartitionStore store, final PartitionId id)
    {
        try (PartitionWriter writer = store.openWriter(id))
        {
            writer.write(new UnsafeBuffer(new byte[] {1, 2, 3}), 0, 3);
            writer.commit();
        }
    }
}
