package dev.offcache.registry.journal;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.agrona.ExpandableArrayBuffer;
import org.agrona.concurrent.CachedEpochClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.offcache.core.checksum.Crc32c;
import dev.offcache.core.journal.Journal;
import dev.offcache.registry.codec.LegacyLocations;
import dev.offcache.registry.state.CacheEntry;
import dev.offcache.registry.state.CacheKey;
import dev.offcache.registry.state.CacheStateMachine;
import dev.offcache.registry.state.DatasetSchema;
import dev.offcache.registry.state.Materialized;
import dev.offcache.registry.state.PartitionLocation;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A registry directory written by the version before locations carried their CRC32C (journal records and a
 * version 1 snapshot in the old location format) recovers: the entries come back, their locations without a CRC;
 * what is written now records the CRC and comes back with it.
 */
class ChangeCodecCompatibilityTest
{
    private static final DatasetSchema SCHEMA = new DatasetSchema("v:int64");
    private static final List<PartitionLocation> OLD = List.of(
        new PartitionLocation("e1", "j-old", 1, 0, "/w/j-old/1/0.data", 100),
        new PartitionLocation("e2", "j-old", 1, 1, "/w/j-old/1/1.data", 200));

    @TempDir
    Path dir;

    @Test
    void recordsAndASnapshotWrittenBeforeCrcsRecoverWithoutThemAndNewOnesWithThem() throws Exception
    {
        final CacheKey inSnapshot = new CacheKey("s", "in-snapshot");
        final CacheKey inJournal = new CacheKey("s", "in-journal");
        Files.createDirectories(dir.resolve("snapshots"));
        Files.write(dir.resolve("snapshots").resolve(String.format("snapshot-%020d.bin", 0)),
            legacySnapshot(inSnapshot));
        try (Journal journal = Journal.open(new Journal.Context().directory(dir.resolve("journal"))))
        {
            final ExpandableArrayBuffer record = legacyPromotion(inJournal);
            journal.append(record, 0, record.capacity());
        }

        final CachedEpochClock clock = new CachedEpochClock();
        final PartitionLocation withCrc = new PartitionLocation("e3", "j-new", 1, 0, "/w/j-new/1/0.data", 300,
            0xCAFEBABEL);
        final CacheKey fresh = new CacheKey("s", "new");
        try (JournalChangeLog log = JournalChangeLog.open(new JournalChangeLog.Context().directory(dir)))
        {
            final CacheStateMachine state = new CacheStateMachine(clock);
            log.recover(state);
            final Map<CacheKey, CacheEntry> entries = state.entries();
            assertEquals(new Materialized("j-old", SCHEMA, OLD, 5), entries.get(inSnapshot));
            assertEquals(new Materialized("j-old", SCHEMA, OLD, 6), entries.get(inJournal));
            assertEquals(PartitionLocation.NO_CRC,
                ((Materialized) entries.get(inJournal)).locations().get(0).crc32c());

            state.listener(log);
            log.beginCommand();
            state.beginMaterialization(fresh, "j-new");
            state.completeMaterialization(fresh, "j-new", SCHEMA, List.of(withCrc));
            log.endCommand();
            log.force();
            log.snapshot(state);
        }
        try (JournalChangeLog log = JournalChangeLog.open(new JournalChangeLog.Context().directory(dir)))
        {
            final CacheStateMachine state = new CacheStateMachine(clock);
            log.recover(state);
            assertEquals(List.of(withCrc), ((Materialized) state.entries().get(fresh)).locations());
            assertEquals(OLD, ((Materialized) state.entries().get(inSnapshot)).locations());
        }
    }

    /**
     * One journal record as the previous version wrote it: one PROMOTE effect, locations in the old format.
     */
    private static ExpandableArrayBuffer legacyPromotion(final CacheKey key)
    {
        final ExpandableArrayBuffer body = effects(key, 6);
        final ExpandableArrayBuffer record = new ExpandableArrayBuffer(body.capacity());
        record.putBytes(0, body, 0, body.capacity());
        return record;
    }

    /**
     * {@code effectCount PROMOTE key job schema atMs legacyLocations}, sized exactly.
     */
    private static ExpandableArrayBuffer effects(final CacheKey key, final long atMs)
    {
        final ExpandableArrayBuffer buffer = new ExpandableArrayBuffer(256);
        int position = 0;
        buffer.putInt(position, 1);
        position += Integer.BYTES;
        buffer.putByte(position++, ChangeCodec.PROMOTE);
        position += buffer.putStringUtf8(position, key.sessionId());
        position += buffer.putStringUtf8(position, key.cacheId());
        position += buffer.putStringUtf8(position, "j-old");
        position += buffer.putStringUtf8(position, SCHEMA.description());
        buffer.putLong(position, atMs);
        position += Long.BYTES;
        final ExpandableArrayBuffer locations = new ExpandableArrayBuffer(128);
        final int length = LegacyLocations.encode(locations, OLD);
        buffer.putBytes(position, locations, 0, length);
        position += length;
        final ExpandableArrayBuffer exact = new ExpandableArrayBuffer(position);
        exact.putBytes(0, buffer, 0, position);
        return exact;
    }

    /**
     * A version 1 snapshot covering position 0: magic, version 1, position, body length, body, CRC32C.
     */
    private static byte[] legacySnapshot(final CacheKey key)
    {
        final ExpandableArrayBuffer body = effects(key, 5);
        final int header = 2 * Integer.BYTES + Long.BYTES + Integer.BYTES;
        final UnsafeBuffer file = new UnsafeBuffer(new byte[header + body.capacity() + Integer.BYTES]);
        file.putInt(0, 0x5352434F);
        file.putInt(Integer.BYTES, 1);
        file.putLong(2 * Integer.BYTES, 0);
        file.putInt(2 * Integer.BYTES + Long.BYTES, body.capacity());
        file.putBytes(header, body, 0, body.capacity());
        final int end = header + body.capacity();
        file.putInt(end, Crc32c.compute(file, 0, end));
        return file.byteArray();
    }
}
