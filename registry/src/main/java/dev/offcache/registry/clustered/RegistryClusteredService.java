package dev.offcache.registry.clustered;

import java.util.ArrayList;
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
import io.aeron.logbuffer.Header;
import org.agrona.DirectBuffer;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.concurrent.CachedEpochClock;
import org.agrona.concurrent.IdleStrategy;

import dev.offcache.registry.api.Resolution;
import dev.offcache.registry.codec.RecordReader;
import dev.offcache.registry.codec.RecordWriter;
import dev.offcache.registry.command.CommandChecks;
import dev.offcache.registry.command.CommandDispatcher;
import dev.offcache.registry.command.CommandType;
import dev.offcache.registry.retention.RetentionPolicy;
import dev.offcache.registry.state.BeginOutcome;
import dev.offcache.registry.state.CacheEntry;
import dev.offcache.registry.state.CacheKey;
import dev.offcache.registry.state.CacheStateMachine;
import dev.offcache.registry.state.Ids;
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
 * <p><b>Commands</b> are decoded by {@link WireCodec}, checked by the same {@link CommandChecks} the clients run and
 * applied by the same {@link CommandDispatcher} as the in-process front; the answer is encoded by {@link WireCodec}.
 * The state, waiters and de-duplication table are written to and loaded from snapshots by {@link ServiceSnapshot}.
 *
 * <p>Single-threaded: everything runs on the cluster's service thread. The {@code volatile} getters are for
 * monitoring and tests.
 */
public final class RegistryClusteredService implements ClusteredService
{
    private final CachedEpochClock clock = new CachedEpochClock();
    private final Set<String> deadExecutors = new HashSet<>();
    private final WaitingStateMachine<Waiter> machine = new WaitingStateMachine<>(
        clock, id -> !deadExecutors.contains(id), StateChangeListener.NONE, this::release);
    private final Long2ObjectHashMap<ClientRecord> clients = new Long2ObjectHashMap<>();
    private final ServiceSnapshot snapshot = new ServiceSnapshot(clock, deadExecutors, machine, clients);
    private final WireCodec.Body body = new WireCodec.Body();
    private final List<PendingRelease> releases = new ArrayList<>();
    private final RecordWriter reply = new RecordWriter(4096);
    private final RecordWriter egress = new RecordWriter(4096);
    private final RecordWriter scratch = new RecordWriter(256);
    private final RecordReader reader = new RecordReader();
    private final CommandDispatcher<Waiter> dispatcher;
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
        this.dispatcher = new CommandDispatcher<>(
            machine, Ids.requireNonNull(retentionPolicy, "retentionPolicy"), clock);
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

    // ---- ClusteredService -------------------------------------------------------------------------------------------

    /**
     * {@inheritDoc}
     */
    public void onStart(final Cluster cluster, final Image snapshotImage)
    {
        this.cluster = cluster;
        if (snapshotImage != null)
        {
            final ServiceSnapshot.Counts counts = snapshot.load(snapshotImage, cluster.idleStrategy());
            applied = counts.applied();
            duplicates = counts.duplicates();
            appliedCommands = applied;
            duplicateCommands = duplicates;
            snapshotsLoaded++;
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
        snapshot.take(snapshotPublication, cluster.idleStrategy(), new ServiceSnapshot.Counts(applied, duplicates));
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

    // ---- monitoring (volatile, any thread) --------------------------------------------------------------------------

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

    // ---- applying a command ------------------------------------------------------------------------------------

    /**
     * Decodes, checks and applies one command and encodes its answer into {@link #reply} (after the OK status).
     * EXECUTOR_LIVE changes the replicated live-executor view here; every other command goes to the dispatcher.
     */
    private void execute(final byte code, final long clientId, final long sequence, final ClientRecord client)
    {
        final WireCodec.Body command = body.decode(code, reader);
        final CommandType type = command.type();
        CommandChecks.check(type, command.key(), command.jobId(), command.id(), command.schema(), command.locations());
        if (type == CommandType.EXECUTOR_LIVE)
        {
            if (command.live)
            {
                deadExecutors.remove(command.id());
            }
            else
            {
                deadExecutors.add(command.id());
            }
            return;
        }
        final Waiter waiter = type == CommandType.ACQUIRE || type == CommandType.AWAIT ?
            new Waiter(clientId, sequence) : null;
        final Object outcome = dispatcher.apply(
            type, command.key(), command.jobId(), command.id(), command.schema(), command.locations(), waiter);
        if (waiter != null && (outcome == null || outcome instanceof BeginOutcome.AlreadyPending))
        {
            client.waiting++;
        }
        if (type == CommandType.ENTRIES)
        {
            @SuppressWarnings("unchecked")
            final Map<CacheKey, CacheEntry> entries = (Map<CacheKey, CacheEntry>) outcome;
            probedEntries = entries;
            probedAtApplied = applied + 1;
            reply.putLong(applied + 1).putLong(duplicates);
        }
        WireCodec.answer(reply, type, outcome);
    }

    // ---- releases and egress ----------------------------------------------------------------------------------------

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
            final ClientRecord target = clients.get(release.waiter.clientId());
            if (target == null)
            {
                continue;
            }
            target.waiting--;
            if (release.waiter.sequence() < target.floor)
            {
                continue;
            }
            target.releases.put(release.waiter.sequence(), release.bytes);
            final ClientSession session = cluster.getClientSession(target.sessionId);
            if (session != null)
            {
                send(session, WireCodec.RELEASE, release.waiter.sequence(), release.bytes);
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

    private record PendingRelease(Waiter waiter, byte[] bytes)
    {
    }
}
