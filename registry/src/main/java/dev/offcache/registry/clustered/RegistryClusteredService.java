package dev.offcache.registry.clustered;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.aeron.ExclusivePublication;
import io.aeron.Image;
import io.aeron.Publication;
import io.aeron.cluster.codecs.CloseReason;
import io.aeron.cluster.service.ClientSession;
import io.aeron.cluster.service.Cluster;
import io.aeron.cluster.service.ClusteredService;
import io.aeron.logbuffer.FragmentHandler;
import io.aeron.logbuffer.Header;
import org.agrona.DirectBuffer;
import org.agrona.ExpandableArrayBuffer;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.concurrent.CachedEpochClock;
import org.agrona.concurrent.IdleStrategy;

import dev.offcache.registry.codec.RecordWriter;
import dev.offcache.registry.codec.RecordReader;
import dev.offcache.registry.retention.RetentionPolicy;
import dev.offcache.registry.api.Resolution;
import dev.offcache.registry.state.BeginOutcome;
import dev.offcache.registry.state.CacheEntry;
import dev.offcache.registry.state.CacheKey;
import dev.offcache.registry.state.CacheStateMachine;
import dev.offcache.registry.state.DatasetSchema;
import dev.offcache.registry.state.Ids;
import dev.offcache.registry.state.Materialized;
import dev.offcache.registry.state.PartitionLocation;
import dev.offcache.registry.state.Pending;
import dev.offcache.registry.state.StateChangeListener;
import dev.offcache.registry.waiting.WaitingStateMachine;

/**
 * The registry's {@link CacheStateMachine} as an Aeron Cluster {@link ClusteredService}: every member applies the
 * same committed log of commands ({@link WireCodec}) in the same order, and the leader's replies reach the client
 * through its session (on followers {@link ClientSession#offer} does nothing).
 *
 * <p><b>Determinism.</b> The state machine's clock is the cluster time of the command being applied (never the wall
 * clock), and its live-executor view is a set changed only by replicated {@link WireCodec#EXECUTOR_LIVE} commands.
 * Nothing here reads local state that another member could see differently.
 *
 * <p><b>Exactly once.</b> Each command carries {@code (clientId, sequence)} and the client's floor (its lowest
 * unanswered sequence). Per client the service keeps the encoded answer of every applied sequence at or above the
 * floor (and the release of every waiter it registered); a resent command whose answer is cached is not applied
 * again: the <em>original</em> answer bytes are sent again (and the original release, if the waiter was released).
 * Answers below the floor are dropped when the floor advances; a command below the floor is ignored (its client
 * already has the answer). The table is part of the snapshot, so it survives restarts and leader changes.
 *
 * <p><b>Waiters.</b> A second action on a Pending key registers {@code (clientId, sequence)}; when the key is
 * promoted or leaves Pending the release is cached and sent to that client's latest session. A client that lost a
 * release (leader change, reconnect) resends the waiting command and gets the cached release, or keeps waiting if
 * the key is still Pending.
 *
 * <p>Single-threaded: everything runs on the cluster's service thread. The {@code volatile} getters are for
 * monitoring and tests. Snapshots are written in chunks no longer than the snapshot publication's maximum payload.
 */
public final class RegistryClusteredService implements ClusteredService
{
    static final int SNAPSHOT_MAGIC = 0x4f435247;
    /** Version 2 records locations with their CRC32C; version 1 snapshots (without) are still loaded. */
    static final int SNAPSHOT_VERSION = 2;
    static final int SNAPSHOT_VERSION_WITHOUT_CRCS = 1;

    private final CachedEpochClock clock = new CachedEpochClock();
    private final Set<String> deadExecutors = new HashSet<>();
    private final WaitingStateMachine<Waiter> machine = new WaitingStateMachine<>(
        clock, id -> !deadExecutors.contains(id), StateChangeListener.NONE, this::release);
    private final CacheStateMachine state = machine.state();
    private final Long2ObjectHashMap<ClientRecord> clients = new Long2ObjectHashMap<>();
    private final List<PendingRelease> releases = new ArrayList<>();
    private final RecordWriter reply = new RecordWriter(4096);
    private final RecordWriter egress = new RecordWriter(4096);
    private final RecordWriter scratch = new RecordWriter(256);
    private final RecordReader reader = new RecordReader();
    private final RetentionPolicy retentionPolicy;
    private final long clientRetentionMs;
    private final int maxEgressChunk;
    private Cluster cluster;
    private long applied;
    private long duplicates;

    private volatile long appliedCommands;
    private volatile long duplicateCommands;
    private volatile long snapshotsTaken;
    private volatile long snapshotsLoaded;
    private volatile Cluster.Role role = Cluster.Role.FOLLOWER;
    private volatile Map<CacheKey, CacheEntry> probedEntries = Map.of();
    private volatile long probedAtApplied = -1;

    /**
     * A service.
     *
     * @param retentionPolicy    what a {@link WireCodec#SWEEP} command removes (at cluster time).
     * @param clientRetentionMs how long (cluster time) the de-duplication record of a client that sent nothing and
     *                          waits for nothing is kept; dropped when a snapshot is taken.
     * @param maxEgressChunk    the longest egress payload (replies longer than this are chunked).
     */
    public RegistryClusteredService(
        final RetentionPolicy retentionPolicy, final long clientRetentionMs, final int maxEgressChunk)
    {
        this.retentionPolicy = Ids.requireNonNull(retentionPolicy, "retentionPolicy");
        if (clientRetentionMs <= 0)
        {
            throw new IllegalArgumentException("clientRetentionMs must be positive: " + clientRetentionMs);
        }
        if (maxEgressChunk < 256)
        {
            throw new IllegalArgumentException("maxEgressChunk must be at least 256: " + maxEgressChunk);
        }
        this.clientRetentionMs = clientRetentionMs;
        this.maxEgressChunk = maxEgressChunk - WireCodec.EGRESS_HEADER_LENGTH;
    }

    /**
     * {@inheritDoc}
     */
    public void onStart(final Cluster cluster, final Image snapshotImage)
    {
        this.cluster = cluster;
        if (snapshotImage != null)
        {
            loadSnapshot(snapshotImage);
        }
    }

    /**
     * {@inheritDoc}
     */
    public void onSessionOpen(final ClientSession session, final long timestamp)
    {
    }

    /**
     * {@inheritDoc}
     */
    public void onSessionClose(final ClientSession session, final long timestamp, final CloseReason closeReason)
    {
    }

    /**
     * {@inheritDoc}
     */
    public void onSessionMessage(
        final ClientSession session,
        final long timestamp,
        final DirectBuffer buffer,
        final int offset,
        final int length,
        final Header header)
    {
        final long now = cluster.timeUnit().toMillis(timestamp);
        clock.update(now);
        if (length < WireCodec.COMMAND_HEADER_LENGTH)
        {
            return;
        }
        final byte type = buffer.getByte(offset);
        final long clientId = buffer.getLong(offset + WireCodec.CLIENT_ID_OFFSET);
        final long sequence = buffer.getLong(offset + WireCodec.SEQUENCE_OFFSET);
        final long floor = buffer.getLong(offset + WireCodec.FLOOR_OFFSET);

        ClientRecord client = clients.get(clientId);
        if (client == null)
        {
            client = new ClientRecord();
            clients.put(clientId, client);
        }
        client.sessionId = session.id();
        client.lastSeenMs = now;
        client.advanceFloor(floor);
        if (sequence < client.floor)
        {
            duplicates++;
            duplicateCommands = duplicates;
            return;
        }
        final byte[] cached = client.replies.get(sequence);
        if (cached != null)
        {
            duplicates++;
            duplicateCommands = duplicates;
            send(session, WireCodec.REPLY, sequence, cached);
            final byte[] released = client.releases.get(sequence);
            if (released != null)
            {
                send(session, WireCodec.RELEASE, sequence, released);
            }
            return;
        }

        reader.wrap(buffer, offset + WireCodec.COMMAND_HEADER_LENGTH, length - WireCodec.COMMAND_HEADER_LENGTH);
        reply.reset().putByte(WireCodec.OK);
        try
        {
            execute(type, clientId, sequence, client);
        }
        catch (final IllegalArgumentException | IllegalStateException ex)
        {
            // Refused before anything changed (the state machine validates first); identical on every member.
            reply.reset().putByte(WireCodec.REFUSED).putString(String.valueOf(ex.getMessage()));
        }
        applied++;
        appliedCommands = applied;
        final byte[] answer = reply.toBytes();
        client.replies.put(sequence, answer);
        send(session, WireCodec.REPLY, sequence, answer);
        flushReleases();
    }

    /**
     * {@inheritDoc}
     */
    public void onTimerEvent(final long correlationId, final long timestamp)
    {
    }

    /**
     * {@inheritDoc}
     */
    public void onTakeSnapshot(final ExclusivePublication snapshotPublication)
    {
        purgeIdleClients();
        final RecordWriter out = encodeSnapshot();
        final int chunk = Math.max(64, snapshotPublication.maxPayloadLength());
        final IdleStrategy idle = cluster.idleStrategy();
        for (int position = 0; position < out.position(); position += chunk)
        {
            final int length = Math.min(chunk, out.position() - position);
            long result;
            while ((result = snapshotPublication.offer(out.buffer(), position, length)) < 0)
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
        snapshotsTaken++;
    }

    /**
     * {@inheritDoc}
     */
    public void onRoleChange(final Cluster.Role newRole)
    {
        role = newRole;
    }

    /**
     * {@inheritDoc}
     */
    public void onTerminate(final Cluster cluster)
    {
    }

    /**
     * Commands applied (each (client, sequence) at most once), including those refused for bad arguments.
     *
     * @return the count, as of the last applied command.
     */
    public long appliedCommands()
    {
        return appliedCommands;
    }

    /**
     * Resent commands answered from the de-duplication table instead of being applied.
     *
     * @return the count.
     */
    public long duplicateCommands()
    {
        return duplicateCommands;
    }

    /**
     * Snapshots this service wrote.
     *
     * @return the count since start.
     */
    public long snapshotsTaken()
    {
        return snapshotsTaken;
    }

    /**
     * Snapshots this service loaded (0 or 1).
     *
     * @return the count since start.
     */
    public long snapshotsLoaded()
    {
        return snapshotsLoaded;
    }

    /**
     * This member's role, as last reported by the cluster.
     *
     * @return the role.
     */
    public Cluster.Role role()
    {
        return role;
    }

    /**
     * The entries as of the last applied {@link WireCodec#ENTRIES} command on this member (tests compare members at
     * that log position).
     *
     * @return an immutable map.
     */
    public Map<CacheKey, CacheEntry> probedEntries()
    {
        return probedEntries;
    }

    /**
     * {@link #appliedCommands()} when {@link #probedEntries()} was taken, or -1.
     *
     * @return the count.
     */
    public long probedAtApplied()
    {
        return probedAtApplied;
    }

    private void execute(final byte type, final long clientId, final long sequence, final ClientRecord client)
    {
        switch (type)
        {
            case WireCodec.LOOKUP:
                reply.entry(machine.lookup(reader.key()));
                break;
            case WireCodec.BEGIN:
            {
                final CacheKey key = reader.key();
                final BeginOutcome outcome = machine.beginMaterialization(key, reader.getString());
                if (outcome instanceof BeginOutcome.AlreadyPending pending)
                {
                    reply.putByte(WireCodec.BEGIN_PENDING).putString(pending.jobId());
                }
                else if (outcome instanceof BeginOutcome.AlreadyMaterialized materialized)
                {
                    reply.putByte(WireCodec.BEGIN_MATERIALIZED).materialized(materialized.entry());
                }
                else
                {
                    reply.putByte(WireCodec.BEGIN_CLAIMED);
                }
                break;
            }
            case WireCodec.COMPLETE:
            {
                final CacheKey key = reader.key();
                final String jobId = reader.getString();
                final DatasetSchema schema = new DatasetSchema(reader.getString());
                final List<PartitionLocation> locations = reader.locations();
                reply.putByte((byte) machine.completeMaterialization(key, jobId, schema, locations).ordinal());
                break;
            }
            case WireCodec.ABORT:
            {
                final CacheKey key = reader.key();
                final String jobId = reader.getString();
                reply.putByte((byte) machine.abortMaterialization(key, jobId).ordinal());
                break;
            }
            case WireCodec.INVALIDATE:
                reply.removed(machine.invalidate(reader.key()));
                break;
            case WireCodec.INVALIDATE_JOB:
            {
                final CacheKey key = reader.key();
                reply.removed(machine.invalidate(key, reader.getString()));
                break;
            }
            case WireCodec.INVALIDATE_EXECUTOR:
            {
                final String executorId = reader.getString();
                reply.removed(machine.invalidateExecutor(executorId));
                break;
            }
            case WireCodec.REMOVE_SESSION:
            {
                final String sessionId = reader.getString();
                reply.removed(machine.removeSession(sessionId));
                break;
            }
            case WireCodec.ACQUIRE:
                acquire(reader.key(), reader.getString(), clientId, sequence, client);
                break;
            case WireCodec.AWAIT:
                await(reader.key(), clientId, sequence, client);
                break;
            case WireCodec.SWEEP:
                reply.removed(machine.sweep(retentionPolicy, clock.time()));
                break;
            case WireCodec.ENTRIES:
            {
                final Map<CacheKey, CacheEntry> entries = state.entries();
                probedEntries = entries;
                probedAtApplied = applied + 1;
                reply.putLong(applied + 1).putLong(duplicates).entries(entries);
                break;
            }
            case WireCodec.PINNED:
                reply.stages(state.pinnedStages());
                break;
            case WireCodec.EXECUTOR_LIVE:
            {
                final String executorId = Ids.requireId(reader.getString(), "executorId");
                if (reader.getByte() != 0)
                {
                    deadExecutors.remove(executorId);
                }
                else
                {
                    deadExecutors.add(executorId);
                }
                break;
            }
            default:
                throw new IllegalArgumentException("unknown registry command type " + type);
        }
    }

    private void acquire(
        final CacheKey key, final String jobId, final long clientId, final long sequence, final ClientRecord client)
    {
        final BeginOutcome outcome = machine.acquire(key, jobId, new Waiter(clientId, sequence));
        if (outcome instanceof BeginOutcome.AlreadyMaterialized materialized)
        {
            reply.putByte(WireCodec.ACQUIRE_HIT).materialized(materialized.entry());
        }
        else if (outcome instanceof BeginOutcome.AlreadyPending pending)
        {
            client.waiting++;
            reply.putByte(WireCodec.ACQUIRE_WAIT).putString(pending.jobId());
        }
        else
        {
            reply.putByte(WireCodec.ACQUIRE_CLAIMED);
        }
    }

    private void await(final CacheKey key, final long clientId, final long sequence, final ClientRecord client)
    {
        final Resolution now = machine.await(key, new Waiter(clientId, sequence));
        if (now == null)
        {
            client.waiting++;
            reply.putByte(WireCodec.AWAIT_WAITING);
        }
        else
        {
            reply.resolution(now);
        }
    }

    private void release(final List<Waiter> pending, final Resolution resolution)
    {
        final byte[] bytes = scratch.reset().resolution(resolution).toBytes();
        for (final Waiter waiter : pending)
        {
            releases.add(new PendingRelease(waiter, bytes));
        }
    }

    private void flushReleases()
    {
        for (int i = 0, size = releases.size(); i < size; i++)
        {
            final PendingRelease release = releases.get(i);
            final ClientRecord target = clients.get(release.waiter.clientId);
            if (target == null)
            {
                continue;
            }
            target.waiting--;
            if (release.waiter.sequence < target.floor)
            {
                continue;
            }
            target.releases.put(release.waiter.sequence, release.bytes);
            final ClientSession session = cluster.getClientSession(target.sessionId);
            if (session != null)
            {
                send(session, WireCodec.RELEASE, release.waiter.sequence, release.bytes);
            }
        }
        releases.clear();
    }

    private void send(final ClientSession session, final byte kind, final long sequence, final byte[] bytes)
    {
        final int chunks = Math.max(1, (bytes.length + maxEgressChunk - 1) / maxEgressChunk);
        for (int i = 0; i < chunks; i++)
        {
            final int from = i * maxEgressChunk;
            final int length = Math.min(maxEgressChunk, bytes.length - from);
            egress.reset().putByte(kind).putLong(sequence).putInt(i).putInt(chunks);
            egress.buffer().putBytes(egress.position(), bytes, from, length);
            if (!offer(session, egress.position() + length))
            {
                // The client resends after a timeout or a leader change and gets the cached answer then.
                return;
            }
        }
    }

    private boolean offer(final ClientSession session, final int length)
    {
        final IdleStrategy idle = cluster.idleStrategy();
        for (int attempt = 0; attempt < 1000; attempt++)
        {
            final long result = session.offer(egress.buffer(), 0, length);
            if (result > 0)
            {
                idle.reset();
                return true;
            }
            if (result != Publication.BACK_PRESSURED && result != Publication.ADMIN_ACTION)
            {
                return false;
            }
            idle.idle();
        }
        return false;
    }

    private void purgeIdleClients()
    {
        final long cutoff = clock.time() - clientRetentionMs;
        clients.values().removeIf(client -> client.waiting == 0 && client.lastSeenMs < cutoff);
    }

    private RecordWriter encodeSnapshot()
    {
        final RecordWriter out = new RecordWriter(64 * 1024);
        out.putInt(0).putInt(SNAPSHOT_MAGIC).putInt(SNAPSHOT_VERSION);
        out.putLong(clock.time()).putLong(applied).putLong(duplicates);
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
                out.putLong(waiter.clientId).putLong(waiter.sequence);
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

    private void loadSnapshot(final Image image)
    {
        final ExpandableArrayBuffer bytes = new ExpandableArrayBuffer(64 * 1024);
        final int[] received = {0};
        final FragmentHandler handler = (buffer, offset, length, header) ->
        {
            bytes.putBytes(received[0], buffer, offset, length);
            received[0] += length;
        };
        final IdleStrategy idle = cluster.idleStrategy();
        while (received[0] < Integer.BYTES || received[0] < bytes.getInt(0))
        {
            final int fragments = image.poll(handler, 64);
            if (fragments == 0)
            {
                if (image.isClosed() || image.isEndOfStream())
                {
                    break;
                }
                cluster.idleStrategy().idle();
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
        decodeSnapshot(new RecordReader().wrap(bytes, 0, received[0]));
        snapshotsLoaded++;
    }

    private void decodeSnapshot(final RecordReader in)
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
        applied = in.getLong();
        duplicates = in.getLong();
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
        appliedCommands = applied;
        duplicateCommands = duplicates;
    }

    private static void readAnswers(final RecordReader in, final Long2ObjectHashMap<byte[]> answers)
    {
        for (int i = 0, n = in.count(); i < n; i++)
        {
            final long sequence = in.getLong();
            answers.put(sequence, in.getBytes(in.count()));
        }
    }

    private record Waiter(long clientId, long sequence)
    {
    }

    private record PendingRelease(Waiter waiter, byte[] bytes)
    {
    }

    /**
     * One client's de-duplication record: its latest session, floor, cached answers and open waiters.
     */
    private static final class ClientRecord
    {
        private final Long2ObjectHashMap<byte[]> replies = new Long2ObjectHashMap<>();
        private final Long2ObjectHashMap<byte[]> releases = new Long2ObjectHashMap<>();
        private long sessionId;
        private long floor;
        private long lastSeenMs;
        private int waiting;

        void advanceFloor(final long newFloor)
        {
            if (newFloor <= floor)
            {
                return;
            }
            if (newFloor - floor <= replies.size() + releases.size())
            {
                for (long sequence = floor; sequence < newFloor; sequence++)
                {
                    replies.remove(sequence);
                    releases.remove(sequence);
                }
            }
            else
            {
                replies.keySet().removeIf(sequence -> sequence < newFloor);
                releases.keySet().removeIf(sequence -> sequence < newFloor);
            }
            floor = newFloor;
        }
    }
}
