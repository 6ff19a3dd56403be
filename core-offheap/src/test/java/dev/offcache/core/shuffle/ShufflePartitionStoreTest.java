package dev.offcache.core.shuffle;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.offcache.core.checksum.Crc32c;
import dev.offcache.core.region.MappedRegion;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ShufflePartitionStoreTest
{
    @TempDir
    Path workDir;

    private long liveMappingsBefore;

    @BeforeEach
    void recordLiveMappings()
    {
        liveMappingsBefore = MappedRegion.liveMappings();
    }

    @AfterEach
    void noMappingLeaks()
    {
        assertEquals(liveMappingsBefore, MappedRegion.liveMappings(), "a mapping leaked");
    }

    static byte[] randomBytes(final long seed, final int length)
    {
        final byte[] bytes = new byte[length];
        new Random(seed).nextBytes(bytes);
        return bytes;
    }

    static int crc32c(final byte[] bytes)
    {
        final CRC32C crc = new CRC32C();
        crc.update(bytes);
        return (int) crc.getValue();
    }

    static PartitionInfo writePartition(final ShufflePartitionStore store, final PartitionId id, final byte[] data)
    {
        try (PartitionWriter writer = store.openWriter(id))
        {
            writer.write(new UnsafeBuffer(data), 0, data.length);
            return writer.commit();
        }
    }

    static byte[] readAll(final MappedPartition partition)
    {
        final byte[] bytes = new byte[(int) partition.length()];
        final UnsafeBuffer view = new UnsafeBuffer(0, 0);
        partition.wrap(view, 0, bytes.length);
        view.getBytes(0, bytes);
        return bytes;
    }

    @Test
    void roundTripGivesTheSameBytesFromHeapAndDirectSourcesInOddChunks()
    {
        final ShufflePartitionStore store = new ShufflePartitionStore(workDir, PinSet.NONE);
        final PartitionId id = new PartitionId("job-1", 3, 7);
        final byte[] data = randomBytes(42, PartitionWriter.STAGING_BYTES * 3 + 12345);
        final ByteBuffer direct = ByteBuffer.allocateDirect(data.length);
        direct.put(data).flip();

        final PartitionInfo info;
        try (PartitionWriter writer = store.openWriter(id))
        {
            writer.write(new UnsafeBuffer(data), 0, 1);
            writer.write(new UnsafeBuffer(direct), 1, 100_000);
            writer.write(new UnsafeBuffer(data), 100_001, data.length - 100_001);
            assertEquals(data.length, writer.length());
            info = writer.commit();
        }

        assertEquals(new PartitionInfo(id, workDir.resolve("job-1/3/7.data"), data.length, crc32c(data)), info);
        assertEquals(store.pathOf(id), info.path());
        assertEquals(data.length + PartitionFile.footerLength(id), info.path().toFile().length());
        assertTrue(store.exists(id));
        try (MappedPartition partition = store.openPartition(id))
        {
            assertEquals(data.length, partition.length());
            assertEquals(crc32c(data), partition.crc32c());
            assertArrayEquals(data, readAll(partition));
            partition.verify();

            final UnsafeBuffer view = new UnsafeBuffer(0, 0);
            partition.wrap(view, 5000, 16);
            assertEquals(data[5000], view.getByte(0));
            assertEquals(data[5015], view.getByte(15));
            assertEquals(liveMappingsBefore + 1, MappedRegion.liveMappings());
        }
    }

    @Test
    void emptyPartitionIsJustAFooter()
    {
        final ShufflePartitionStore store = new ShufflePartitionStore(workDir, PinSet.NONE);
        final PartitionId id = new PartitionId("j", 0, 0);
        final PartitionInfo info = writePartition(store, id, new byte[0]);
        assertEquals(0, info.length());
        assertEquals("j".length() + PartitionFile.TRAILER_LENGTH, info.path().toFile().length());
        try (MappedPartition partition = store.openPartition(id))
        {
            assertEquals(0, partition.length());
            partition.verify();
            partition.wrap(new UnsafeBuffer(0, 0), 0, 0);
            assertThrows(IndexOutOfBoundsException.class, () -> partition.wrap(new UnsafeBuffer(0, 0), 0, 1));
        }
    }

    @Test
    void viewsOutsideTheDataAndUseAfterCloseAreRefused()
    {
        final ShufflePartitionStore store = new ShufflePartitionStore(workDir, PinSet.NONE);
        final PartitionId id = new PartitionId("j", 1, 2);
        writePartition(store, id, randomBytes(1, 100));
        final UnsafeBuffer view = new UnsafeBuffer(0, 0);
        final MappedPartition partition = store.openPartition(id);
        partition.wrap(view, 90, 10);
        final IndexOutOfBoundsException past = assertThrows(
            IndexOutOfBoundsException.class, () -> partition.wrap(view, 91, 10));
        assertTrue(past.getMessage().contains("j/1/2"), past.getMessage());
        assertThrows(IndexOutOfBoundsException.class, () -> partition.wrap(view, -1, 1));
        assertThrows(IndexOutOfBoundsException.class, () -> partition.wrap(view, 0, -1));
        assertThrows(IndexOutOfBoundsException.class, () -> partition.wrap(view, Long.MAX_VALUE, 1));
        partition.close();
        partition.close();
        assertThrows(IllegalStateException.class, () -> partition.wrap(view, 0, 1));
        assertThrows(IllegalStateException.class, partition::verify);
        assertFalse(partition.tryRetain());
    }

    @Test
    void aRetainedPartitionStaysMappedUntilTheLastRelease()
    {
        final ShufflePartitionStore store = new ShufflePartitionStore(workDir, PinSet.NONE);
        final PartitionId id = new PartitionId("j", 1, 2);
        final byte[] data = randomBytes(2, 64);
        writePartition(store, id, data);
        final MappedPartition partition = store.openPartition(id);
        assertTrue(partition.tryRetain());
        partition.close();
        assertEquals(liveMappingsBefore + 1, MappedRegion.liveMappings());
        assertArrayEquals(data, readAll(partition));
        partition.release();
        assertEquals(liveMappingsBefore, MappedRegion.liveMappings());
        assertThrows(IllegalStateException.class, partition::release);
    }

    @Test
    void recommittingAPartitionReplacesItWhileMappedReadersKeepTheOldBytes()
    {
        final ShufflePartitionStore store = new ShufflePartitionStore(workDir, PinSet.NONE);
        final PartitionId id = new PartitionId("j", 1, 2);
        final byte[] first = randomBytes(3, 1000);
        final byte[] second = randomBytes(4, 2000);
        writePartition(store, id, first);
        try (MappedPartition old = store.openPartition(id))
        {
            writePartition(store, id, second);
            assertArrayEquals(first, readAll(old));
            old.verify();
            try (MappedPartition fresh = store.openPartition(id))
            {
                assertArrayEquals(second, readAll(fresh));
            }
        }
    }

    @Test
    void uncommittedWritesAreInvisibleAndAbortOrCloseDeleteTheTempFile() throws IOException
    {
        final ShufflePartitionStore store = new ShufflePartitionStore(workDir, PinSet.NONE);
        final PartitionId id = new PartitionId("j", 0, 5);
        final PartitionWriter writer = store.openWriter(id);
        writer.write(new UnsafeBuffer(randomBytes(5, 500)), 0, 500);
        assertTrue(Files.exists(writer.tempPath()));
        assertFalse(store.exists(id));
        final PartitionNotFoundException notFound = assertThrows(
            PartitionNotFoundException.class, () -> store.openPartition(id));
        assertEquals(id, notFound.id());
        assertTrue(notFound.getMessage().contains(store.pathOf(id).toString()), notFound.getMessage());
        assertEquals(List.of(), store.list());
        assertTrue(Files.exists(writer.tempPath()), "listing must not delete the temp file of a live writer");

        writer.abort();
        writer.abort();
        assertFalse(Files.exists(writer.tempPath()));
        assertThrows(IllegalStateException.class, () -> writer.write(new UnsafeBuffer(new byte[1]), 0, 1));
        assertThrows(IllegalStateException.class, writer::commit);

        final PartitionWriter closed = store.openWriter(id);
        closed.write(new UnsafeBuffer(new byte[10]), 0, 10);
        closed.close();
        assertFalse(Files.exists(closed.tempPath()));
        assertFalse(store.exists(id));
        try (Stream<Path> stageFiles = Files.list(store.pathOf(id).getParent()))
        {
            assertEquals(0, stageFiles.count(), "no temp file left in the stage directory");
        }

        final PartitionWriter committed = store.openWriter(id);
        committed.commit();
        assertThrows(IllegalStateException.class, committed::abort);
        committed.close();
        assertTrue(store.exists(id));
    }

    @Test
    void writeRangeOutsideTheSourceIsRefused()
    {
        final ShufflePartitionStore store = new ShufflePartitionStore(workDir, PinSet.NONE);
        try (PartitionWriter writer = store.openWriter(new PartitionId("j", 0, 0)))
        {
            final UnsafeBuffer source = new UnsafeBuffer(new byte[10]);
            assertThrows(IndexOutOfBoundsException.class, () -> writer.write(source, 5, 6));
            assertThrows(IndexOutOfBoundsException.class, () -> writer.write(source, -1, 2));
            assertThrows(IndexOutOfBoundsException.class, () -> writer.write(source, 0, -1));
            assertEquals(0, writer.length());
        }
    }

    @Test
    void pinnedStagesSurviveDeleteStageAndDeleteJob()
    {
        final Set<String> pinned = Set.of("job-a/1", "job-b/0");
        final ShufflePartitionStore store = new ShufflePartitionStore(
            workDir, (jobId, stageId) -> pinned.contains(jobId + "/" + stageId));
        for (final String job : List.of("job-a", "job-b"))
        {
            for (int stage = 0; stage < 3; stage++)
            {
                for (int partition = 0; partition < 2; partition++)
                {
                    writePartition(store, new PartitionId(job, stage, partition), randomBytes(stage, 10));
                }
            }
        }

        assertFalse(store.deleteStage("job-a", 1), "pinned stage must not be deleted");
        assertTrue(store.deleteStage("job-a", 2));
        assertFalse(store.deleteStage("job-a", 2), "already gone");
        assertFalse(store.deleteStage("job-a", 9), "never existed");
        assertEquals(1, store.deleteJob("job-a"));
        assertEquals(2, store.deleteJob("job-b"));
        assertEquals(0, store.deleteJob("job-c"));

        assertEquals(List.of(
            new PartitionId("job-a", 1, 0), new PartitionId("job-a", 1, 1),
            new PartitionId("job-b", 0, 0), new PartitionId("job-b", 0, 1)), store.list());
        try (MappedPartition partition = store.openPartition(new PartitionId("job-a", 1, 1)))
        {
            partition.verify();
        }

        final ShufflePartitionStore unpinned = new ShufflePartitionStore(workDir, PinSet.NONE);
        assertEquals(1, unpinned.deleteJob("job-a"));
        assertFalse(Files.exists(workDir.resolve("job-a")), "job directory removed once empty");
        assertTrue(unpinned.deleteStage("job-b", 0));
        assertFalse(Files.exists(workDir.resolve("job-b")), "job directory removed with its last stage");
    }

    @Test
    void deletingAStageRemovesTheJobDirectoryOnlyWithItsLastStage()
    {
        final ShufflePartitionStore store = new ShufflePartitionStore(workDir, PinSet.NONE);
        writePartition(store, new PartitionId("job", 0, 0), randomBytes(1, 10));
        writePartition(store, new PartitionId("job", 1, 0), randomBytes(2, 10));
        assertTrue(store.deleteStage("job", 1));
        assertTrue(Files.isDirectory(workDir.resolve("job")), "stage 0 still lives there");
        assertTrue(store.deleteStage("job", 0));
        assertFalse(Files.exists(workDir.resolve("job")), "no empty job directory is left behind");
        // A writer of the same job after the directory went recreates it.
        writePartition(store, new PartitionId("job", 2, 0), randomBytes(3, 10));
        assertEquals(List.of(new PartitionId("job", 2, 0)), store.list());
    }

    @Test
    void deleteJobKeepsTheStagesThatCallIsToldToKeep()
    {
        final ShufflePartitionStore store = new ShufflePartitionStore(
            workDir, (jobId, stageId) -> stageId == 0);
        for (int stage = 0; stage < 4; stage++)
        {
            writePartition(store, new PartitionId("job", stage, 0), randomBytes(stage, 10));
        }
        assertEquals(2, store.deleteJob("job", (jobId, stageId) -> stageId == 2));
        assertEquals(List.of(new PartitionId("job", 0, 0), new PartitionId("job", 2, 0)), store.list(),
            "the store's pins and the call's pins both kept their stage");
        assertEquals(1, store.deleteJob("job", PinSet.NONE));
        assertEquals(List.of(new PartitionId("job", 0, 0)), store.list());
    }

    @Test
    void aValidFileOfAnotherPartitionInItsPlaceIsRefused() throws IOException
    {
        final ShufflePartitionStore store = new ShufflePartitionStore(workDir, PinSet.NONE);
        final PartitionId p0 = new PartitionId("job", 1, 0);
        final PartitionId p3 = new PartitionId("job", 1, 3);
        final PartitionId otherJob = new PartitionId("jab", 1, 3);
        final PartitionInfo info0 = writePartition(store, p0, randomBytes(0, 5000));
        final PartitionInfo info3 = writePartition(store, p3, randomBytes(3, 5000));
        writePartition(store, otherJob, randomBytes(3, 5000));
        Files.copy(info0.path(), info3.path(), StandardCopyOption.REPLACE_EXISTING);
        final CorruptPartitionException swapped = assertThrows(
            CorruptPartitionException.class, () -> store.openPartition(p3));
        assertTrue(swapped.getMessage().contains("holds partition job/1/0, not job/1/3"), swapped.getMessage());
        assertEquals(info3.path(), swapped.path());

        // Same stage and partition, same length, another job: refused as well.
        Files.copy(store.pathOf(otherJob), info3.path(), StandardCopyOption.REPLACE_EXISTING);
        final CorruptPartitionException otherJobsFile = assertThrows(
            CorruptPartitionException.class, () -> store.openPartition(p3));
        assertTrue(otherJobsFile.getMessage().contains("holds partition jab/1/3"), otherJobsFile.getMessage());

        // A recorded path is honoured, and checked against the partition it should hold.
        try (MappedPartition partition = store.openPartition(p0, info0.path()))
        {
            assertEquals(p0, partition.id());
            assertArrayEquals(randomBytes(0, 5000), readAll(partition));
        }
        final Path moved = workDir.resolve("elsewhere.data");
        Files.copy(info0.path(), moved);
        try (MappedPartition partition = store.openPartition(p0, moved))
        {
            assertEquals(info0.crc32c(), partition.crc32c());
        }
        assertThrows(CorruptPartitionException.class, () -> store.openPartition(p3, moved));
        final PartitionNotFoundException missing = assertThrows(
            PartitionNotFoundException.class, () -> store.openPartition(p0, workDir.resolve("nothing.data")));
        assertTrue(missing.getMessage().contains("nothing.data"), missing.getMessage());
    }

    @Test
    void aVersion1FileIsRefusedSayingSo() throws IOException
    {
        final ShufflePartitionStore store = new ShufflePartitionStore(workDir, PinSet.NONE);
        final PartitionId id = new PartitionId("old", 0, 0);
        for (final int dataLength : new int[] {0, 16, 4096})
        {
            // data, then the version 1 footer: magic, version 1, data length, data CRC, footer CRC of [0, 20)
            final byte[] data = randomBytes(dataLength, dataLength);
            final UnsafeBuffer file = new UnsafeBuffer(new byte[dataLength + 24]);
            file.putBytes(0, data);
            file.putInt(dataLength, PartitionFile.MAGIC, ByteOrder.LITTLE_ENDIAN);
            file.putInt(dataLength + 4, 1, ByteOrder.LITTLE_ENDIAN);
            file.putLong(dataLength + 8, dataLength, ByteOrder.LITTLE_ENDIAN);
            file.putInt(dataLength + 16, crc32c(data), ByteOrder.LITTLE_ENDIAN);
            file.putInt(dataLength + 20, Crc32c.compute(file, dataLength, 20), ByteOrder.LITTLE_ENDIAN);
            Files.createDirectories(store.pathOf(id).getParent());
            Files.write(store.pathOf(id), file.byteArray());
            final CorruptPartitionException ex = assertThrows(
                CorruptPartitionException.class, () -> store.openPartition(id));
            assertTrue(ex.getMessage().contains("format version 1"), ex.getMessage());
        }
    }

    @Test
    void aReadOnlyStoreReadsButNeverWritesDeletesOrCleans() throws IOException
    {
        final ShufflePartitionStore writer = new ShufflePartitionStore(workDir, PinSet.NONE);
        final PartitionId id = new PartitionId("job", 0, 0);
        writePartition(writer, id, randomBytes(5, 300));
        final Path stale = workDir.resolve("job/0/.1.data.7-abc.tmp");
        Files.write(stale, new byte[10]);

        final ShufflePartitionStore reader = ShufflePartitionStore.openReadOnly(workDir);
        assertTrue(reader.isReadOnly());
        assertEquals(List.of(id), reader.list());
        assertTrue(Files.exists(stale), "a read-only store cleans nothing, even a leftover");
        try (MappedPartition partition = reader.openPartition(id))
        {
            partition.verify();
        }
        final IllegalStateException write = assertThrows(
            IllegalStateException.class, () -> reader.openWriter(new PartitionId("job", 0, 1)));
        assertTrue(write.getMessage().contains("read-only"), write.getMessage());
        assertThrows(IllegalStateException.class, () -> reader.deleteStage("job", 0));
        assertThrows(IllegalStateException.class, () -> reader.deleteJob("job"));
        assertEquals(List.of(id), writer.list());

        final ShufflePartitionStore missing = ShufflePartitionStore.openReadOnly(workDir.resolve("not-yet"));
        assertEquals(List.of(), missing.list());
        assertFalse(Files.exists(workDir.resolve("not-yet")), "a read-only store creates nothing");
    }

    @Test
    void aSecondStoreInThisProcessKeepsTheFirstOnesInFlightWrites()
    {
        final ShufflePartitionStore first = new ShufflePartitionStore(workDir, PinSet.NONE);
        final PartitionId id = new PartitionId("job", 0, 0);
        final byte[] data = randomBytes(9, 1000);
        try (PartitionWriter writer = first.openWriter(id))
        {
            writer.write(new UnsafeBuffer(data), 0, 500);
            final ShufflePartitionStore second = new ShufflePartitionStore(workDir, PinSet.NONE);
            assertEquals(List.of(), second.list());
            assertTrue(Files.exists(writer.tempPath()), "still being written");
            writer.write(new UnsafeBuffer(data), 500, 500);
            writer.commit();
            try (MappedPartition partition = second.openPartition(id))
            {
                assertArrayEquals(data, readAll(partition));
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "a/b", "a\\b", "..", "a..b", ".hidden", ".", "tab\there", "nul\u0000", "é", "a b",
        "x:y"})
    void badJobIdsAreRefusedWithTheReason(final String jobId)
    {
        final IllegalArgumentException ex = assertThrows(
            IllegalArgumentException.class, () -> new PartitionId(jobId, 0, 0));
        assertTrue(ex.getMessage().startsWith("jobId"), ex.getMessage());
        final ShufflePartitionStore store = new ShufflePartitionStore(workDir, PinSet.NONE);
        assertThrows(IllegalArgumentException.class, () -> store.deleteStage(jobId, 0));
        assertThrows(IllegalArgumentException.class, () -> store.deleteJob(jobId));
    }

    @Test
    void badIdsAreRefused()
    {
        assertThrows(IllegalArgumentException.class, () -> new PartitionId(null, 0, 0));
        final String longest = "j".repeat(PartitionId.MAX_JOB_ID_LENGTH);
        assertEquals(longest, new PartitionId(longest, 0, 0).jobId());
        final IllegalArgumentException tooLong = assertThrows(
            IllegalArgumentException.class, () -> new PartitionId(longest + "j", 0, 0));
        assertTrue(tooLong.getMessage().contains("129"), tooLong.getMessage());
        final IllegalArgumentException stage = assertThrows(
            IllegalArgumentException.class, () -> new PartitionId("j", -1, 0));
        assertTrue(stage.getMessage().contains("stageId"), stage.getMessage());
        final IllegalArgumentException partition = assertThrows(
            IllegalArgumentException.class, () -> new PartitionId("j", 0, -1));
        assertTrue(partition.getMessage().contains("partitionId"), partition.getMessage());
        final ShufflePartitionStore store = new ShufflePartitionStore(workDir, PinSet.NONE);
        assertThrows(IllegalArgumentException.class, () -> store.deleteStage("j", -1));
        assertEquals("Job_1.x-2", new PartitionId("Job_1.x-2", Integer.MAX_VALUE, Integer.MAX_VALUE).jobId());
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 10, 23, 40, 1023, 1024 + 40})
    void truncatedFilesGiveCorruptPartitionExceptionNamingTheFile(final int keepBytes) throws IOException
    {
        final ShufflePartitionStore store = new ShufflePartitionStore(workDir, PinSet.NONE);
        final PartitionId id = new PartitionId("j", 0, 0);
        final PartitionInfo info = writePartition(store, id, randomBytes(6, 1024));
        try (FileChannel channel = FileChannel.open(info.path(), StandardOpenOption.WRITE))
        {
            channel.truncate(keepBytes);
        }
        final CorruptPartitionException ex = assertThrows(
            CorruptPartitionException.class, () -> store.openPartition(id));
        assertEquals(info.path(), ex.path());
        assertTrue(ex.getMessage().contains(info.path().toString()), ex.getMessage());
    }

    @Test
    void aFlippedDataByteIsCaughtByVerify() throws IOException
    {
        final ShufflePartitionStore store = new ShufflePartitionStore(workDir, PinSet.NONE);
        final PartitionId id = new PartitionId("j", 0, 0);
        final PartitionInfo info = writePartition(store, id, randomBytes(7, 3 * 1024 * 1024 + 5));
        flipByte(info.path(), 2 * 1024 * 1024 + 77);
        try (MappedPartition partition = store.openPartition(id))
        {
            final CorruptPartitionException ex = assertThrows(CorruptPartitionException.class, partition::verify);
            assertTrue(ex.getMessage().contains("data checksum mismatch"), ex.getMessage());
            assertTrue(ex.getMessage().contains(info.path().toString()), ex.getMessage());
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 4, 8, 12, 16, 20, 24, 28, 32, 36, 40})
    void aFlippedFooterByteIsCaughtOnOpen(final int footerByte) throws IOException
    {
        final ShufflePartitionStore store = new ShufflePartitionStore(workDir, PinSet.NONE);
        final PartitionId id = new PartitionId("j", 0, 0);
        final PartitionInfo info = writePartition(store, id, randomBytes(8, 4096));
        flipByte(info.path(), 4096 + footerByte);
        final CorruptPartitionException ex = assertThrows(
            CorruptPartitionException.class, () -> store.openPartition(id));
        assertTrue(ex.getMessage().contains(info.path().toString()), ex.getMessage());
    }

    @Test
    void listAfterARestartShowsCommittedPartitionsAndCleansCrashLeftovers() throws Exception
    {
        final ShufflePartitionStore before = new ShufflePartitionStore(workDir, PinSet.NONE);
        final List<PartitionId> committed = List.of(
            new PartitionId("a", 0, 0), new PartitionId("a", 0, 10), new PartitionId("a", 2, 1),
            new PartitionId("b", 1, 3));
        for (final PartitionId id : committed)
        {
            writePartition(before, id, randomBytes(id.partitionId(), 100));
        }
        // What a writer in a process that died leaves: its temporary file, named with its process id.
        final Process gone = new ProcessBuilder("true").start();
        gone.waitFor();
        final Path crashedTemp = workDir.resolve("a/2/.2.data.pid" + gone.pid() + "-5-77.tmp");
        Files.write(crashedTemp, new byte[100]);
        Files.createDirectories(workDir.resolve("a/notastage"));
        Files.writeString(workDir.resolve("a/0/readme.txt"), "not ours");
        Files.writeString(workDir.resolve("a/0/01.data"), "not a canonical name");

        final ShufflePartitionStore after = new ShufflePartitionStore(workDir, PinSet.NONE);
        assertFalse(Files.exists(crashedTemp), "a crashed writer's temp file is deleted on startup");
        assertEquals(committed, after.list());
        assertTrue(Files.exists(workDir.resolve("a/0/readme.txt")), "files that are not ours are kept");
        for (final PartitionId id : committed)
        {
            try (MappedPartition partition = after.openPartition(id))
            {
                assertArrayEquals(randomBytes(id.partitionId(), 100), readAll(partition));
            }
        }
    }

    @Test
    void aStaleTempFileIsDeletedByListing() throws Exception
    {
        final ShufflePartitionStore store = new ShufflePartitionStore(workDir, PinSet.NONE);
        writePartition(store, new PartitionId("a", 0, 0), new byte[3]);
        final Process gone = new ProcessBuilder("true").start();
        gone.waitFor();
        final Path deadWriters = workDir.resolve("a/0/.1.data.pid" + gone.pid() + "-1-abc.tmp");
        final Path olderVersions = workDir.resolve("a/0/.2.data.99-abc.tmp");
        final Path liveWriters = workDir.resolve("a/0/.3.data.pid" + ProcessHandle.current().parent()
            .map(ProcessHandle::pid).orElseThrow() + "-1-abc.tmp");
        for (final Path temp : List.of(deadWriters, olderVersions, liveWriters))
        {
            Files.write(temp, new byte[50]);
        }
        assertEquals(List.of(new PartitionId("a", 0, 0)), store.list());
        assertFalse(Files.exists(deadWriters), "its writer's process is gone");
        assertFalse(Files.exists(olderVersions), "no process id: a crash leftover of an older version");
        assertTrue(Files.exists(liveWriters), "another live process may still be writing it");
    }

    static void flipByte(final Path path, final long offset) throws IOException
    {
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE))
        {
            final ByteBuffer one = ByteBuffer.allocate(1);
            channel.read(one, offset);
            one.put(0, (byte) (one.get(0) ^ 0x5A)).rewind();
            channel.write(one, offset);
        }
    }

    @Test
    void aWriterAfterTheStoreDirectoryWasDeletedFailsAndDoesNotCreateItAgain() throws IOException
    {
        final Path root = workDir.resolve("executor-7");
        final ShufflePartitionStore store = new ShufflePartitionStore(root, PinSet.NONE);
        writePartition(store, new PartitionId("job-1", 0, 0), randomBytes(1, 100));
        try (Stream<Path> walk = Files.walk(root))
        {
            walk.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        }
        assertFalse(Files.exists(root));

        final UncheckedIOException refused = assertThrows(UncheckedIOException.class,
            () -> store.openWriter(new PartitionId("job-1", 0, 1)));
        assertTrue(refused.getMessage().contains("was deleted"), refused.getMessage());
        assertFalse(Files.exists(root), "the store's directory is not created again by a late writer");
    }
}
