package dev.offcache.registry.clustered;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.aeron.ExclusivePublication;
import io.aeron.Image;
import io.aeron.Publication;
import io.aeron.logbuffer.FragmentHandler;
import org.agrona.ExpandableArrayBuffer;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.concurrent.CachedEpochClock;
import org.agrona.concurrent.IdleStrategy;

import dev.offcache.registry.codec.RecordReader;
import dev.offcache.registry.codec.RecordWriter;
import dev.offcache.registry.state.CacheEntry;
import dev.offcache.registry.state.CacheKey;
import dev.offcache.registry.state.CacheStateMachine;
import dev.offcache.registry.state.Materialized;
import dev.offcache.registry.state.Pending;
import dev.offcache.registry.waiting.WaitingStateMachine;

/**
 * The {@link RegistryClusteredService}'s snapshot: its format, and its transfer through the snapshot publication
 * (in chunks no longer than the publication's maximum payload) and back from the snapshot image. It writes and
 * restores the service's state in place (the clock, the dead executors, the entries by session, the waiters, the
 * de-duplication table), so the service and its snapshot share those objects.
 *
 * <pre>
 *   snapshot := length:int32 magic:int32 version:int32 time:int64 applied:int64 duplicates:int64
 *               deadExecutors:(count:int32 id*) sessions:(count:int32 session*) waiters:(count:int32 waiterKey*)
 *               clients:(count:int32 client*)
 *   session  := id lastActivityMs:int64 count:int32 (cacheId entry)*
 *   waiterKey:= key count:int32 (clientId:int64 sequence:int64)*
 *   client   := clientId:int64 sessionId:int64 floor:int64 lastSeenMs:int64 waiting:int32 answers answers
 *   answers  := count:int32 (sequence:int64 length:int32 bytes)*
 * </pre>
 */
final class ServiceSnapshot
{
    static final int SNAPSHOT_MAGIC = 0x4f435247;
    /** Version 2 records locations with their CRC32C; version 1 snapshots (without) are still loaded. */
    static final int SNAPSHOT_VERSION = 2;
    static final int SNAPSHOT_VERSION_WITHOUT_CRCS = 1;

    private final CachedEpochClock clock;
    private final Set<String> deadExecutors;
    private final WaitingStateMachine<Waiter> machine;
    private final CacheStateMachine state;
    private final Long2ObjectHashMap<ClientRecord> clients;

    /**
     * The snapshot of a service's state.
     *
     * @param clock         the service's clock (cluster time).
     * @param deadExecutors the replicated dead-executor set.
     * @param machine       the state machine with its waiters.
     * @param clients       the de-duplication table.
     */
    ServiceSnapshot(
        final CachedEpochClock clock,
        final Set<String> deadExecutors,
        final WaitingStateMachine<Waiter> machine,
        final Long2ObjectHashMap<ClientRecord> clients)
    {
        this.clock = clock;
        this.deadExecutors = deadExecutors;
        this.machine = machine;
        this.state = machine.state();
        this.clients = clients;
    }

    /**
     * What a loaded snapshot restores besides the state: the service's counters.
     *
     * @param applied    commands applied.
     * @param duplicates resends answered from the table.
     */
    record Counts(long applied, long duplicates)
    {
    }

    // ---- taking a snapshot ------------------------------------------------------------------------------------------

    /**
     * Encodes the state and offers it to the snapshot publication, waiting out back pressure.
     *
     * @param publication the snapshot publication.
     * @param idle        how to wait while it is back-pressured.
     * @param counts      the service's counters.
     * @throws IllegalStateException when the publication is closed or cannot take more.
     */
    void take(final ExclusivePublication publication, final IdleStrategy idle, final Counts counts)
    {
        final RecordWriter out = encode(counts);
        final int chunk = Math.max(64, publication.maxPayloadLength());
        for (int position = 0; position < out.position(); position += chunk)
        {
            final int length = Math.min(chunk, out.position() - position);
            long result;
            while ((result = publication.offer(out.buffer(), position, length)) < 0)
            {
                if (result == Publication.CLOSED || result == Publication.NOT_CONNECTED ||
                    result == Publication.MAX_POSITION_EXCEEDED)
                {
                    throw new IllegalStateException("snapshot publication failed: " + result);
                }
                idle.idle();
            }
            idle.reset();
        }
    }

    private RecordWriter encode(final Counts counts)
    {
        final RecordWriter out = new RecordWriter(64 * 1024);
        out.putInt(0).putInt(SNAPSHOT_MAGIC).putInt(SNAPSHOT_VERSION);
        out.putLong(clock.time()).putLong(counts.applied()).putLong(counts.duplicates());
        out.putInt(deadExecutors.size());
        for (final String executor : deadExecutors)
        {
            out.putString(executor);
        }
        final Map<String, List<CacheKey>> keysBySession = new HashMap<>();
        state.forEachEntry((key, entry) -> keysBySession.computeIfAbsent(key.sessionId(), s -> new ArrayList<>())
            .add(key));
        final Map<CacheKey, CacheEntry> entries = state.entries();
        final int[] sessions = {0};
        final int sessionCountAt = out.position();
        out.putInt(0);
        state.forEachSession((sessionId, lastActivityMs) ->
        {
            final List<CacheKey> keys = keysBySession.get(sessionId);
            out.putString(sessionId).putLong(lastActivityMs).putInt(keys.size());
            for (final CacheKey key : keys)
            {
                out.putString(key.cacheId()).entry(entries.get(key));
            }
            sessions[0]++;
        });
        out.buffer().putInt(sessionCountAt, sessions[0]);
        final int waiterKeysAt = out.position();
        out.putInt(0);
        final int[] waiterKeys = {0};
        machine.forEachWaiter((key, list) ->
        {
            out.key(key).putInt(list.size());
            for (final Waiter waiter : list)
            {
                out.putLong(waiter.clientId()).putLong(waiter.sequence());
            }
            waiterKeys[0]++;
        });
        out.buffer().putInt(waiterKeysAt, waiterKeys[0]);
        out.putInt(clients.size());
        for (final Long2ObjectHashMap<ClientRecord>.EntryIterator it = clients.entrySet().iterator(); it.hasNext();)
        {
            it.next();
            final ClientRecord client = it.getValue();
            out.putLong(it.getLongKey()).putLong(client.sessionId).putLong(client.floor).putLong(client.lastSeenMs)
                .putInt(client.waiting);
            putAnswers(out, client.replies);
            putAnswers(out, client.releases);
        }
        out.buffer().putInt(0, out.position());
        return out;
    }

    private static void putAnswers(final RecordWriter out, final Long2ObjectHashMap<byte[]> answers)
    {
        out.putInt(answers.size());
        for (final Long2ObjectHashMap<byte[]>.EntryIterator it = answers.entrySet().iterator(); it.hasNext();)
        {
            it.next();
            out.putLong(it.getLongKey()).putInt(it.getValue().length).putBytes(it.getValue());
        }
    }

    // ---- loading a snapshot -----------------------------------------------------------------------------------------

    /**
     * Reads the whole snapshot from its image and restores the state from it.
     *
     * @param image the snapshot image.
     * @param idle  how to wait for more of it.
     * @return the service's counters as of the snapshot.
     * @throws IllegalStateException when the snapshot is truncated or not one this member reads.
     */
    Counts load(final Image image, final IdleStrategy idle)
    {
        final ExpandableArrayBuffer bytes = new ExpandableArrayBuffer(64 * 1024);
        final int[] received = {0};
        final FragmentHandler handler = (buffer, offset, length, header) ->
        {
            bytes.putBytes(received[0], buffer, offset, length);
            received[0] += length;
        };
        while (received[0] < Integer.BYTES || received[0] < bytes.getInt(0))
        {
            final int fragments = image.poll(handler, 64);
            if (fragments == 0)
            {
                if (image.isClosed() || image.isEndOfStream())
                {
                    break;
                }
                idle.idle();
            }
            else
            {
                idle.reset();
            }
        }
        if (received[0] < Integer.BYTES || received[0] != bytes.getInt(0))
        {
            throw new IllegalStateException("registry snapshot truncated: " + received[0] + " bytes");
        }
        return decode(new RecordReader().wrap(bytes, 0, received[0]));
    }

    private Counts decode(final RecordReader in)
    {
        in.getInt();
        final int magic = in.getInt();
        final int version = in.getInt();
        if (magic != SNAPSHOT_MAGIC || (version != SNAPSHOT_VERSION && version != SNAPSHOT_VERSION_WITHOUT_CRCS))
        {
            throw new IllegalStateException("not a registry snapshot this member reads (magic " +
                Integer.toHexString(magic) + ", version " + version + "; reads versions " +
                SNAPSHOT_VERSION_WITHOUT_CRCS + " and " + SNAPSHOT_VERSION + ")");
        }
        final long snapshotTime = in.getLong();
        final Counts counts = new Counts(in.getLong(), in.getLong());
        for (int i = 0, n = in.count(); i < n; i++)
        {
            deadExecutors.add(in.getString());
        }
        for (int s = 0, sessions = in.count(); s < sessions; s++)
        {
            final String sessionId = in.getString();
            final long lastActivityMs = in.getLong();
            // Restoring at the session's own activity time reproduces its idle-expiry clock exactly.
            clock.update(lastActivityMs);
            for (int k = 0, keys = in.count(); k < keys; k++)
            {
                final CacheKey key = new CacheKey(sessionId, in.getString());
                final CacheEntry entry = in.entry();
                if (entry instanceof Materialized materialized)
                {
                    state.restorePromotion(key, materialized);
                }
                else if (entry instanceof Pending pending)
                {
                    state.restoreClaim(key, pending.jobId());
                }
            }
        }
        for (int i = 0, n = in.count(); i < n; i++)
        {
            final CacheKey key = in.key();
            for (int w = 0, count = in.count(); w < count; w++)
            {
                machine.restoreWaiter(key, new Waiter(in.getLong(), in.getLong()));
            }
        }
        for (int i = 0, n = in.count(); i < n; i++)
        {
            final long clientId = in.getLong();
            final ClientRecord client = new ClientRecord();
            client.sessionId = in.getLong();
            client.floor = in.getLong();
            client.lastSeenMs = in.getLong();
            client.waiting = in.getInt();
            readAnswers(in, client.replies);
            readAnswers(in, client.releases);
            clients.put(clientId, client);
        }
        clock.update(snapshotTime);
        return counts;
    }

    private static void readAnswers(final RecordReader in, final Long2ObjectHashMap<byte[]> answers)
    {
        for (int i = 0, n = in.count(); i < n; i++)
        {
            final long sequence = in.getLong();
            answers.put(sequence, in.getBytes(in.count()));
        }
    }
}
