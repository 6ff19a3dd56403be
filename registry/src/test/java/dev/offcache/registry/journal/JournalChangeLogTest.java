package dev.offcache.registry.journal;

import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.agrona.concurrent.CachedEpochClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.offcache.core.journal.Journal;
import dev.offcache.core.journal.JournalCorruptException;
import dev.offcache.core.region.MappedRegion;
import dev.offcache.registry.front.CacheRegistry;
import dev.offcache.registry.state.CacheEntry;
import dev.offcache.registry.state.CacheKey;
import dev.offcache.registry.state.CacheStateMachine;
import dev.offcache.registry.state.CompletionOutcome;
import dev.offcache.registry.state.DatasetSchema;
import dev.offcache.registry.state.PartitionLocation;
import dev.offcache.registry.state.StageRef;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The durable backend: restart comes back to the acknowledged state, snapshots bound replay and trim the journal,
 * a torn tail record is dropped, and corruption before the tail stops start-up naming segment and offset.
 */
class JournalChangeLogTest
{
    private static final DatasetSchema SCHEMA = new DatasetSchema("{\"fields\":[\"a\",\"b\"]}");

    @TempDir
    Path dir;

    private final CachedEpochClock clock = new CachedEpochClock();

    @Test
    void restartComesBackToTheAcknowledgedState() throws Exception
    {
        final long mappingsBefore = MappedRegion.liveMappings();
        final Map<CacheKey, CacheEntry> before;
        final Set<StageRef> pinsBefore;
        try (CacheRegistry registry = durable(1_000))
        {
            for (int i = 0; i < 30; i++)
            {
                final CacheKey key = new CacheKey("s" + (i % 3), "c" + i);
                registry.beginMaterialization(key, "j" + i).get(5, TimeUnit.SECONDS);
                clock.advance(7);
                if (i % 3 != 2)
                {
                    registry.completeMaterialization(key, "j" + i, SCHEMA, locations("j" + i, i % 4))
                        .get(5, TimeUnit.SECONDS);
                }
            }
            registry.invalidate(new CacheKey("s0", "c3")).get(5, TimeUnit.SECONDS);
            registry.invalidateExecutor("e1").get(5, TimeUnit.SECONDS);
            registry.removeSession("s2").get(5, TimeUnit.SECONDS);
            registry.abortMaterialization(new CacheKey("s1", "c10"), "j10").get(5, TimeUnit.SECONDS);
            before = registry.entries().get(5, TimeUnit.SECONDS);
            pinsBefore = registry.pinnedStages();
        }
        assertTrue(before.size() > 5, "the scenario leaves entries behind: " + before.size());
        try (CacheRegistry registry = durable(1_000))
        {
            assertEquals(before, registry.entries().get(5, TimeUnit.SECONDS));
            assertEquals(pinsBefore, registry.pinnedStages());
        }
        assertEquals(mappingsBefore, MappedRegion.liveMappings(), "closing the registry unmaps every segment");
    }

    @Test
    void snapshotsBoundReplayAndTrimTheJournal() throws Exception
    {
        final long mappingsBefore = MappedRegion.liveMappings();
        final Map<CacheKey, CacheEntry> before;
        try (CacheRegistry registry = durable(20))
        {
            for (int i = 0; i < 120; i++)
            {
                final CacheKey key = new CacheKey("s", "c" + (i % 40));
                registry.invalidate(key).get(5, TimeUnit.SECONDS);
                registry.beginMaterialization(key, "j" + i).get(5, TimeUnit.SECONDS);
                registry.completeMaterialization(key, "j" + i, SCHEMA, locations("j" + i, i % 4))
                    .get(5, TimeUnit.SECONDS);
            }
            before = registry.entries().get(5, TimeUnit.SECONDS);
        }
        assertEquals(40, before.size());
        try (JournalChangeLog log = open(20))
        {
            final CacheStateMachine state = new CacheStateMachine(clock);
            log.recover(state);
            assertEquals(before, state.entries());
            assertTrue(log.recoveredRecords() < 20, "replay is bounded by the snapshot: " + log.recoveredRecords());
            assertTrue(log.segmentCount() <= 2, "covered segments are deleted: " + log.segmentCount());
        }
        try (Journal journal = Journal.open(new Journal.Context().directory(dir.resolve("journal")).segmentSize(
            64 * 1024)))
        {
            assertTrue(journal.startPosition() > 0, "the journal was trimmed");
        }
        try (Stream files = new Stream(dir.resolve("snapshots")))
        {
            assertEquals(1, files.names.size(), "older snapshots are deleted: " + files.names);
        }
        assertEquals(mappingsBefore, MappedRegion.liveMappings(), "deleted and closed segments are unmapped");
    }

    @Test
    void aTornTailRecordIsDroppedAndEverythingBeforeItKept() throws Exception
    {
        final Map<CacheKey, CacheEntry> beforeLast;
        final Path image = dir.resolve("crash-image");
        try (CacheRegistry registry = durable(1_000))
        {
            registry.beginMaterialization(new CacheKey("s", "a"), "ja").get(5, TimeUnit.SECONDS);
            registry.completeMaterialization(new CacheKey("s", "a"), "ja", SCHEMA, locations("ja", 0))
                .get(5, TimeUnit.SECONDS);
            beforeLast = registry.entries().get(5, TimeUnit.SECONDS);
            // What a crash of the registry's process leaves: its files as they are while it runs.
            copyTree(dir, image);
            registry.beginMaterialization(new CacheKey("s", "b"), "jb").get(5, TimeUnit.SECONDS);
        }
        // Positions from the closed original (opening the image would acknowledge what it holds).
        final List<Long> positions = recordPositions(dir);
        assertEquals(3, positions.size());
        // The crash came in the middle of the third append, before its force and acknowledgement: half of the
        // record reached the file.
        final long third = positions.get(2);
        final byte[] frame = new byte[64];
        try (RandomAccessFile original = new RandomAccessFile(segment0(dir).toFile(), "r");
            RandomAccessFile crashed = new RandomAccessFile(segment0(image).toFile(), "rw"))
        {
            original.seek(third);
            original.readFully(frame);
            crashed.seek(third);
            crashed.write(frame, 0, 20);
        }
        try (CacheRegistry registry = CacheRegistry.launch(new CacheRegistry.Context().clock(clock)
            .changeLog(open(image, 1_000))))
        {
            assertEquals(beforeLast, registry.entries().get(5, TimeUnit.SECONDS));
        }
    }

    @Test
    void losingTheLastAcknowledgedRecordIsRefused() throws Exception
    {
        final Path image = dir.resolve("crash-image");
        try (CacheRegistry registry = durable(1_000))
        {
            registry.beginMaterialization(new CacheKey("s", "a"), "ja").get(5, TimeUnit.SECONDS);
            registry.beginMaterialization(new CacheKey("s", "b"), "jb").get(5, TimeUnit.SECONDS);
            // A crash right after the second acknowledgement: the image holds the checkpoint the force wrote.
            copyTree(dir, image);
        }
        final List<Long> positions = recordPositions(dir);
        flipByte(segment0(image), positions.get(1) + 12);
        final JournalCorruptException ex = assertThrows(JournalCorruptException.class, () -> open(image, 1_000));
        assertTrue(ex.getMessage().contains("acknowledged records are lost"), ex.getMessage());
    }

    @Test
    void acknowledgedRecordsLostAfterACleanShutdownStopStartUp() throws Exception
    {
        try (CacheRegistry registry = durable(1_000))
        {
            for (int i = 0; i < 3; i++)
            {
                registry.beginMaterialization(new CacheKey("s", "c" + i), "j" + i).get(5, TimeUnit.SECONDS);
            }
        }
        final List<Long> positions = recordPositions(dir);
        flipByte(segment0(dir), positions.get(2) + 12);
        final JournalCorruptException ex = assertThrows(JournalCorruptException.class, () -> open(dir, 1_000));
        assertTrue(ex.getMessage().contains("acknowledged records are lost"), ex.getMessage());
    }

    @Test
    void losingTheNewestSegmentOrTheJournalAfterASnapshotStopsStartUp() throws Exception
    {
        try (CacheRegistry registry = CacheRegistry.launch(new CacheRegistry.Context().clock(clock)
            .changeLog(JournalChangeLog.open(new JournalChangeLog.Context().directory(dir).segmentSize(4096)
                .snapshotEveryRecords(1_000_000)))))
        {
            for (int i = 0; i < 300; i++)
            {
                registry.beginMaterialization(new CacheKey("session", "cache-" + i), "job-" + i)
                    .get(5, TimeUnit.SECONDS);
            }
        }
        final List<Path> segments = new ArrayList<>();
        try (Stream files = new Stream(dir.resolve("journal")))
        {
            for (final String name : files.names)
            {
                if (name.endsWith(".journal"))
                {
                    segments.add(dir.resolve("journal").resolve(name));
                }
            }
        }
        assertTrue(segments.size() >= 3, "segments: " + segments);
        final Path newest = segments.get(segments.size() - 1);
        Files.delete(newest);
        final JournalCorruptException missing = assertThrows(JournalCorruptException.class, () -> open(dir, 1_000));
        assertTrue(missing.getMessage().contains(newest.getFileName().toString()), missing.getMessage());

        // A snapshot, then a journal directory replaced by an empty one (lock file and all): the records after the
        // snapshot would be silently gone.
        Files.delete(dir.resolve("journal").resolve("journal.lock"));
        for (final Path segment : segments.subList(0, segments.size() - 1))
        {
            Files.delete(segment);
        }
        try (CacheRegistry registry = durable(1_000))
        {
            registry.beginMaterialization(new CacheKey("s", "x"), "jx").get(5, TimeUnit.SECONDS);
        }
        try (JournalChangeLog log = open(dir, 1_000))
        {
            log.snapshot(new CacheStateMachine(clock));
        }
        try (Stream files = new Stream(dir.resolve("journal")))
        {
            for (final String name : files.names)
            {
                Files.delete(dir.resolve("journal").resolve(name));
            }
        }
        try (JournalChangeLog log = open(dir, 1_000))
        {
            final IllegalStateException gone = assertThrows(IllegalStateException.class,
                () -> log.recover(new CacheStateMachine(clock)));
            assertTrue(gone.getMessage().contains("before the newest snapshot's position"), gone.getMessage());
        }
    }

    @Test
    void corruptionBeforeTheTailStopsStartUpNamingSegmentAndOffset() throws Exception
    {
        try (CacheRegistry registry = durable(1_000))
        {
            for (int i = 0; i < 5; i++)
            {
                registry.beginMaterialization(new CacheKey("s", "c" + i), "j" + i).get(5, TimeUnit.SECONDS);
            }
        }
        final List<Long> positions = recordPositions();
        flipByte(segment0(), positions.get(1) + 10);
        final JournalCorruptException ex = assertThrows(JournalCorruptException.class, () -> open(1_000));
        assertTrue(ex.getMessage().contains(segment0().getFileName().toString()), ex.getMessage());
        assertTrue(ex.getMessage().contains("offset " + positions.get(1)), ex.getMessage());
    }

    @Test
    void aDamagedSnapshotStopsStartUpNamingTheFile() throws Exception
    {
        try (CacheRegistry registry = durable(2))
        {
            for (int i = 0; i < 6; i++)
            {
                registry.beginMaterialization(new CacheKey("s", "c" + i), "j" + i).get(5, TimeUnit.SECONDS);
            }
        }
        final Path snapshot;
        try (Stream files = new Stream(dir.resolve("snapshots")))
        {
            snapshot = dir.resolve("snapshots").resolve(files.names.get(0));
        }
        flipByte(snapshot, 30);
        try (JournalChangeLog log = open(2))
        {
            final IllegalStateException ex =
                assertThrows(IllegalStateException.class, () -> log.recover(new CacheStateMachine(clock)));
            assertTrue(ex.getMessage().contains(snapshot.toString()), ex.getMessage());
        }
    }

    @Test
    void aCompletionTooLargeForOneRecordIsRefusedUpFrontAndTheRegistryKeepsRunning() throws Exception
    {
        try (CacheRegistry registry = durable(1_000))
        {
            final CacheKey key = new CacheKey("s", "huge");
            registry.beginMaterialization(key, "j").get(5, TimeUnit.SECONDS);
            final List<PartitionLocation> many = new ArrayList<>();
            for (int p = 0; p < 2_000; p++)
            {
                many.add(new PartitionLocation("e1", "j", 0, p, "/w/j/0/" + p + ".data", 1));
            }
            final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
                () -> registry.completeMaterialization(key, "j", SCHEMA, many));
            assertTrue(ex.getMessage().contains("raise JournalChangeLog segmentSize"), ex.getMessage());
            assertEquals(CompletionOutcome.PROMOTED, registry.completeMaterialization(
                key, "j", SCHEMA, many.subList(0, 100)).get(5, TimeUnit.SECONDS));
        }
    }

    @Test
    void groupCommitForcesOncePerBatch() throws Exception
    {
        final JournalChangeLog log = open(1_000_000);
        try (CacheRegistry registry = CacheRegistry.launch(new CacheRegistry.Context().clock(clock).changeLog(log)))
        {
            final List<CompletableFuture<?>> futures = new ArrayList<>();
            for (int i = 0; i < 2_000; i++)
            {
                futures.add(registry.beginMaterialization(new CacheKey("s", "c" + i), "j"));
            }
            for (final CompletableFuture<?> future : futures)
            {
                future.get(10, TimeUnit.SECONDS);
            }
            assertEquals(2_000, log.recordsAppended());
            assertTrue(log.forces() >= 1 && log.forces() <= log.recordsAppended());
        }
    }

    private CacheRegistry durable(final long snapshotEvery)
    {
        return CacheRegistry.launch(new CacheRegistry.Context().clock(clock).changeLog(open(snapshotEvery)));
    }

    private JournalChangeLog open(final long snapshotEvery)
    {
        return open(dir, snapshotEvery);
    }

    private static JournalChangeLog open(final Path root, final long snapshotEvery)
    {
        return JournalChangeLog.open(new JournalChangeLog.Context()
            .directory(root)
            .segmentSize(64 * 1024)
            .snapshotEveryRecords(snapshotEvery));
    }

    private List<Long> recordPositions()
    {
        return recordPositions(dir);
    }

    private static List<Long> recordPositions(final Path root)
    {
        final List<Long> positions = new ArrayList<>();
        try (Journal journal = Journal.open(new Journal.Context().directory(root.resolve("journal")).segmentSize(
            64 * 1024)))
        {
            assertEquals(1, journal.segmentCount());
            journal.forEach((buffer, offset, length, position) -> positions.add(position));
        }
        return positions;
    }

    private Path segment0() throws Exception
    {
        return segment0(dir);
    }

    private static Path segment0(final Path root) throws Exception
    {
        try (Stream files = new Stream(root.resolve("journal")))
        {
            for (final String name : files.names)
            {
                if (name.endsWith(".journal"))
                {
                    return root.resolve("journal").resolve(name);
                }
            }
        }
        throw new AssertionError("no segment file");
    }

    private static void copyTree(final Path from, final Path to) throws Exception
    {
        for (final String sub : List.of("journal", "snapshots"))
        {
            Files.createDirectories(to.resolve(sub));
            try (Stream files = new Stream(from.resolve(sub)))
            {
                for (final String name : files.names)
                {
                    Files.copy(from.resolve(sub).resolve(name), to.resolve(sub).resolve(name));
                }
            }
        }
    }

    private static void flipByte(final Path file, final long offset) throws Exception
    {
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw"))
        {
            raf.seek(offset);
            final int b = raf.read();
            raf.seek(offset);
            raf.write(b ^ 0x5A);
        }
    }

    static List<PartitionLocation> locations(final String job, final int executor)
    {
        return List.of(
            new PartitionLocation("e" + executor, job, 1, 0, "/w/" + job + "/1/0.data", 1000),
            new PartitionLocation("e" + ((executor + 1) % 4), job, 1, 1, "/w/" + job + "/1/1.data", 2000));
    }

    /**
     * File names of a directory, sorted.
     */
    private static final class Stream implements AutoCloseable
    {
        private final List<String> names = new ArrayList<>();

        Stream(final Path directory) throws Exception
        {
            try (java.util.stream.Stream<Path> list = Files.list(directory))
            {
                list.forEach(p -> names.add(p.getFileName().toString()));
            }
            names.sort(String::compareTo);
        }

        public void close()
        {
        }
    }
}
