package dev.offcache.registry.clustered;

import java.util.ArrayList;
import java.util.List;

import io.aeron.cluster.service.ClientSession;
import io.aeron.cluster.service.Cluster;
import org.agrona.ExpandableArrayBuffer;
import org.junit.jupiter.api.Test;

import dev.offcache.registry.codec.RecordWriter;
import dev.offcache.registry.codec.LegacyLocations;
import dev.offcache.registry.retention.RetentionPolicy;
import dev.offcache.registry.state.CacheKey;
import dev.offcache.registry.state.Materialized;
import dev.offcache.registry.state.PartitionLocation;
import dev.offcache.registry.state.Pending;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * The service's de-duplication and waiter bookkeeping, driven directly (no Aeron): a fake cluster and session
 * record what the service would send.
 */
class ClusteredServiceDedupTest
{
    private static final long CLIENT = 42;
    private static final CacheKey KEY = new CacheKey("s", "c");

    private final List<byte[]> sent = new ArrayList<>();
    private final ClientSession session = session(7);
    private final RegistryClusteredService service =
        new RegistryClusteredService(RetentionPolicy.none(), 60_000, 32 * 1024);
    private final RecordWriter writer = new RecordWriter(256);
    private long time = 1_000;

    @Test
    void aResentCommandIsAnsweredWithTheOriginalBytesAndNotAppliedAgain()
    {
        service.onStart(cluster(), null);
        command(WireCodec.BEGIN, 1, 1, w -> w.key(KEY).putString("j1"));
        final byte[] first = sent.get(0);
        command(WireCodec.INVALIDATE, 2, 1, w -> w.key(KEY));
        command(WireCodec.BEGIN, 3, 1, w -> w.key(KEY).putString("j2"));
        assertEquals(3, service.appliedCommands());

        // seq 1 again (its reply was lost): not applied (j2 keeps the claim), the very same bytes come back.
        sent.clear();
        command(WireCodec.BEGIN, 1, 1, w -> w.key(KEY).putString("j1"));
        assertEquals(3, service.appliedCommands());
        assertEquals(1, service.duplicateCommands());
        assertArrayEquals(first, sent.get(0));
        command(WireCodec.ENTRIES, 4, 1, ClusteredServiceDedupTest::noBody);
        assertEquals(new Pending("j2"), service.probedEntries().get(KEY));

        // Once the client's floor passes seq 1 the cached answer is gone and a late copy is ignored (no reply).
        command(WireCodec.LOOKUP, 5, 5, w -> w.key(KEY));
        sent.clear();
        command(WireCodec.BEGIN, 1, 5, w -> w.key(KEY).putString("j1"));
        assertEquals(0, sent.size());
        assertEquals(5, service.appliedCommands());
    }

    @Test
    void aResentWaitGetsTheReleaseThatWasSentWhileItsClientWasAway()
    {
        service.onStart(cluster(), null);
        command(WireCodec.BEGIN, 1, 1, w -> w.key(KEY).putString("j1"));
        command(WireCodec.AWAIT, 2, 2, w -> w.key(KEY));
        command(WireCodec.ABORT, 3, 2, w -> w.key(KEY).putString("j1"));
        // The reply to ABORT and the release of waiter 2 were sent (and, say, lost in a leader change).
        final byte[] release = sent.get(sent.size() - 1);
        assertEquals(WireCodec.RELEASE, release[0]);

        sent.clear();
        command(WireCodec.AWAIT, 2, 2, w -> w.key(KEY));
        assertEquals(2, sent.size(), "the cached reply (waiting) and the cached release");
        assertEquals(WireCodec.REPLY, sent.get(0)[0]);
        assertArrayEquals(release, sent.get(1));
        assertEquals(3, service.appliedCommands());
        assertNotEquals(0, service.duplicateCommands());
    }

    @Test
    void aConditionalInvalidateRemovesOnlyThatJobsEntryAndLegacyCompletionsStillApply()
    {
        service.onStart(cluster(), null);
        final List<PartitionLocation> locations = List.of(
            new PartitionLocation("e1", "j1", 1, 0, "/w/j1/1/0.data", 10, 0x1234L),
            new PartitionLocation("e2", "j1", 1, 1, "/w/j1/1/1.data", 20, 0x5678L));
        command(WireCodec.BEGIN, 1, 1, w -> w.key(KEY).putString("j1"));
        command(WireCodec.COMPLETE, 2, 1, w -> w.key(KEY).putString("j1").putString("v").locations(locations));
        command(WireCodec.INVALIDATE_JOB, 3, 1, w -> w.key(KEY).putString("j0"));
        command(WireCodec.ENTRIES, 4, 1, ClusteredServiceDedupTest::noBody);
        assertEquals(locations, ((Materialized) service.probedEntries().get(KEY)).locations(),
            "another job's invalidation left it; the CRCs came through the log");
        command(WireCodec.INVALIDATE_JOB, 5, 1, w -> w.key(KEY).putString("j1"));
        command(WireCodec.ENTRIES, 6, 1, ClusteredServiceDedupTest::noBody);
        assertNull(service.probedEntries().get(KEY), "that job's invalidation removed it");

        // A completion in the log as the previous version wrote it (locations without CRCs) still applies.
        command(WireCodec.BEGIN, 7, 1, w -> w.key(KEY).putString("j1"));
        final ExpandableArrayBuffer legacy = new ExpandableArrayBuffer(128);
        final int length = LegacyLocations.encode(legacy, locations);
        command(WireCodec.COMPLETE, 8, 1, w -> w.key(KEY).putString("j1").putString("v").putBytes(legacy, 0, length));
        command(WireCodec.ENTRIES, 9, 1, ClusteredServiceDedupTest::noBody);
        for (final PartitionLocation location : ((Materialized) service.probedEntries().get(KEY)).locations())
        {
            assertEquals(PartitionLocation.NO_CRC, location.crc32c());
        }
    }

    private static void noBody(final RecordWriter writer)
    {
    }

    private interface Body
    {
        void write(RecordWriter writer);
    }

    private void command(final byte type, final long sequence, final long floor, final Body body)
    {
        WireCodec.command(writer, type);
        body.write(writer);
        writer.buffer().putLong(WireCodec.CLIENT_ID_OFFSET, CLIENT);
        writer.buffer().putLong(WireCodec.SEQUENCE_OFFSET, sequence);
        writer.buffer().putLong(WireCodec.FLOOR_OFFSET, floor);
        service.onSessionMessage(session, time++, writer.buffer(), 0, writer.position(), null);
    }

    private ClientSession session(final long id)
    {
        return FakeCluster.session(id, sent);
    }

    private Cluster cluster()
    {
        return FakeCluster.cluster(session);
    }
}
