package dev.offcache.core.shuffle;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;


import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.offcache.testkit.jvm.ChildJvm;

/**
 * A second store over an executor's directory, in another process (a co-located reader), while the executor has a
 * partition in flight: neither a read-only nor a writable second store deletes the writer's temporary file, so the
 * executor's commit succeeds; the read-only one reads committed partitions and refuses to write or delete.
 */
class ColocatedStoreTest
{
    @TempDir
    Path workDir;

    /**
     * Child: {@code <workDir> <mode>}; opens a store over the directory (mode {@code read-only} or {@code writable}),
     * lists it, prints {@code LISTED <ids>}, then for every listed partition {@code PARTITION <id> <crc> <length>}
     * after verifying it, then (read-only) {@code WRITE <refused|allowed>}, then {@code DONE}.
     */
    public static final class SecondStore
    {
        public static void main(final String[] args)
        {
            final PrintStream out = System.out;
            final boolean readOnly = "read-only".equals(args[1]);
            final ShufflePartitionStore store = readOnly ? ShufflePartitionStore.openReadOnly(Path.of(args[0])) :
                new ShufflePartitionStore(Path.of(args[0]), PinSet.NONE);
            final List<PartitionId> ids = store.list();
            out.println("LISTED " + ids);
            for (final PartitionId id : ids)
            {
                try (MappedPartition partition = store.openPartition(id))
                {
                    partition.verify();
                    out.println("PARTITION " + id + " " + partition.crc32c() + " " + partition.length());
                }
            }
            if (readOnly)
            {
                String write;
                try
                {
                    store.openWriter(new PartitionId("other", 0, 0)).close();
                    write = "allowed";
                }
                catch (final IllegalStateException expected)
                {
                    write = "refused";
                }
                out.println("WRITE " + write);
            }
            out.println("DONE");
            out.flush();
        }
    }

    @Test
    @Timeout(60)
    void aWritableSecondStoreInAnotherProcessLeavesTheWritersInFlightFileAlone() throws Exception
    {
        assertSecondStoreLeavesWriterAlone("writable");
    }

    @Test
    @Timeout(60)
    void aReadOnlyStoreInAnotherProcessReadsCommittedPartitionsAndTouchesNothing() throws Exception
    {
        final List<String> lines = assertSecondStoreLeavesWriterAlone("read-only");
        assertTrue(lines.contains("WRITE refused"), lines.toString());
    }

    private List<String> assertSecondStoreLeavesWriterAlone(final String mode) throws Exception
    {
        final ShufflePartitionStore executor = new ShufflePartitionStore(workDir, PinSet.NONE);
        final byte[] committed = ShufflePartitionStoreTest.randomBytes(1, 10_000);
        final PartitionInfo info =
            ShufflePartitionStoreTest.writePartition(executor, new PartitionId("job", 1, 0), committed);
        final byte[] inFlight = ShufflePartitionStoreTest.randomBytes(2, 70_000);
        try (PartitionWriter writer = executor.openWriter(new PartitionId("job", 1, 1)))
        {
            writer.write(new UnsafeBuffer(inFlight), 0, 40_000);
            assertTrue(Files.exists(writer.tempPath()));

            final List<String> lines = runChild(mode);
            assertEquals("LISTED [job/1/0]", lines.get(0), lines.toString());
            assertEquals("PARTITION job/1/0 " + info.crc32c() + " " + committed.length, lines.get(1));
            assertEquals("DONE", lines.get(lines.size() - 1));

            assertTrue(Files.exists(writer.tempPath()), "the other process kept the in-flight temporary file");
            writer.write(new UnsafeBuffer(inFlight), 40_000, inFlight.length - 40_000);
            writer.commit();
            try (MappedPartition partition = executor.openPartition(new PartitionId("job", 1, 1)))
            {
                partition.verify();
                assertArrayEquals(inFlight, ShufflePartitionStoreTest.readAll(partition));
            }
            return lines;
        }
    }

    private List<String> runChild(final String mode) throws Exception
    {
        final Process process = new ProcessBuilder(
            ChildJvm.command(List.of("-Xmx64m"), SecondStore.class, workDir.toString(), mode))
            .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        final List<String> lines = new ArrayList<>();
        try (BufferedReader in = new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.US_ASCII)))
        {
            String line;
            while ((line = in.readLine()) != null)
            {
                lines.add(line);
            }
            assertTrue(process.waitFor(30, TimeUnit.SECONDS), "child exits");
            assertEquals(0, process.exitValue(), "child exit code; it printed " + lines);
        }
        finally
        {
            process.destroyForcibly();
        }
        return lines;
    }
}
