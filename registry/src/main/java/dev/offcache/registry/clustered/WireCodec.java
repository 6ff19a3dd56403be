package dev.offcache.registry.clustered;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.offcache.registry.api.Resolution;
import dev.offcache.registry.codec.RecordReader;
import dev.offcache.registry.codec.RecordWriter;
import dev.offcache.registry.command.Command;
import dev.offcache.registry.command.CommandType;
import dev.offcache.registry.state.AbortOutcome;
import dev.offcache.registry.state.BeginOutcome;
import dev.offcache.registry.state.CacheEntry;
import dev.offcache.registry.state.CacheKey;
import dev.offcache.registry.state.CompletionOutcome;
import dev.offcache.registry.state.DatasetSchema;
import dev.offcache.registry.state.PartitionLocation;
import dev.offcache.registry.state.RemovedEntry;
import dev.offcache.registry.state.StageRef;

/**
 * The bytes the clustered registry puts on the wire and into its snapshots. Keys, entries, locations, removals,
 * stage sets and resolutions are the registry's records, written by {@link RecordWriter} and read by
 * {@link RecordReader} exactly as the journal writes them; this class adds the command header, the command and
 * answer tags and the egress framing (little-endian, strings as {@code length:int32 utf8}):
 *
 * <pre>
 *   command  := type:int8 clientId:int64 sequence:int64 floor:int64 body      (ingress, one message)
 *   body     := LOOKUP key | BEGIN key job | COMPLETE key job schema locations | ABORT key job
 *             | INVALIDATE key | INVALIDATE_JOB key job | INVALIDATE_EXECUTOR id | REMOVE_SESSION id
 *             | ACQUIRE key job | AWAIT key | SWEEP | ENTRIES | PINNED | EXECUTOR_LIVE id live:int8
 *   egress   := kind:int8 sequence:int64 chunkIndex:int32 chunkCount:int32 chunk  (REPLY or RELEASE)
 *   reply    := status:int8 (OK answer | REFUSED message)
 *   answer   := LOOKUP entry | BEGIN (CLAIMED | PENDING job | MATERIALIZED materialized)
 *             | COMPLETE outcome:int8 | ABORT outcome:int8 | INVALIDATE* REMOVE_SESSION SWEEP removed
 *             | ACQUIRE (HIT materialized | CLAIMED | WAIT job) | AWAIT (resolution | WAITING)
 *             | ENTRIES applied:int64 duplicates:int64 entries | PINNED stages | EXECUTOR_LIVE (nothing)
 *   key, entry, materialized, locations, removed, entries, stages, resolution := see {@link RecordWriter}
 *               (locations with CRCs; logs, snapshots and cached answers written before CRCs read without)
 * </pre>
 *
 * A reply or release longer than one egress message is split into chunks that the client reassembles by sequence.
 * {@code floor} is the client's lowest sequence still waiting for an answer: the service forgets the cached
 * answers below it.
 */
public final class WireCodec
{
    /** Command types (first byte of an ingress message). */
    public static final byte LOOKUP = 1;
    /** Claim a key. */
    public static final byte BEGIN = 2;
    /** Promote a claim. */
    public static final byte COMPLETE = 3;
    /** Clear a claim. */
    public static final byte ABORT = 4;
    /** Remove one entry. */
    public static final byte INVALIDATE = 5;
    /** Remove an executor's entries. */
    public static final byte INVALIDATE_EXECUTOR = 6;
    /** Remove a session's entries. */
    public static final byte REMOVE_SESSION = 7;
    /** Hit, claim or wait. */
    public static final byte ACQUIRE = 8;
    /** Wait for a pending key. */
    public static final byte AWAIT = 9;
    /** One eviction sweep at cluster time. */
    public static final byte SWEEP = 10;
    /** A copy of every entry (diagnostics, tests). */
    public static final byte ENTRIES = 11;
    /** The pinned stages. */
    public static final byte PINNED = 12;
    /** The scheduler's live-executor view changed (replicated, so every member validates reads alike). */
    public static final byte EXECUTOR_LIVE = 13;
    /** Remove one entry if it is still the given job's. */
    public static final byte INVALIDATE_JOB = 14;

    /** Egress kind: the answer to a command. */
    public static final byte REPLY = 1;
    /** Egress kind: a waiter registered by an earlier ACQUIRE or AWAIT was released. */
    public static final byte RELEASE = 2;

    /** Reply status: the command ran. */
    public static final byte OK = 0;
    /** Reply status: the state machine refused the command's arguments; a message follows. */
    public static final byte REFUSED = 1;

    /** Offset of the client id in a command. */
    public static final int CLIENT_ID_OFFSET = 1;
    /** Offset of the sequence in a command. */
    public static final int SEQUENCE_OFFSET = CLIENT_ID_OFFSET + Long.BYTES;
    /** Offset of the floor in a command. */
    public static final int FLOOR_OFFSET = SEQUENCE_OFFSET + Long.BYTES;
    /** Length of a command header; the body follows. */
    public static final int COMMAND_HEADER_LENGTH = FLOOR_OFFSET + Long.BYTES;
    /** Length of an egress header; the chunk follows. */
    public static final int EGRESS_HEADER_LENGTH = 1 + Long.BYTES + 2 * Integer.BYTES;

    /** Acquire answers. */
    static final byte ACQUIRE_HIT = 0;
    static final byte ACQUIRE_CLAIMED = 1;
    static final byte ACQUIRE_WAIT = 2;
    /** Await answers: a resolution ({@link RecordWriter#resolution}), or this tag while the waiter waits. */
    static final byte AWAIT_WAITING = 2;
    /** Begin answers. */
    static final byte BEGIN_CLAIMED = 0;
    static final byte BEGIN_PENDING = 1;
    static final byte BEGIN_MATERIALIZED = 2;

    private WireCodec()
    {
    }

    /**
     * Starts a command in a writer: the type and a zeroed header (client id, sequence and floor are filled in when
     * it is sent).
     *
     * @param writer the writer; reset.
     * @param type   the command type.
     * @return the writer, positioned for the body.
     */
    public static RecordWriter command(final RecordWriter writer, final byte type)
    {
        return writer.reset().putByte(type).putLong(0).putLong(0).putLong(0);
    }

    /**
     * A command's byte on the wire.
     *
     * @param type the command.
     * @return its byte.
     * @throws IllegalArgumentException for {@link CommandType#SHUTDOWN}, which never leaves its process.
     */
    public static byte code(final CommandType type)
    {
        return switch (type)
        {
            case LOOKUP -> LOOKUP;
            case BEGIN -> BEGIN;
            case COMPLETE -> COMPLETE;
            case ABORT -> ABORT;
            case INVALIDATE -> INVALIDATE;
            case INVALIDATE_JOB -> INVALIDATE_JOB;
            case INVALIDATE_EXECUTOR -> INVALIDATE_EXECUTOR;
            case REMOVE_SESSION -> REMOVE_SESSION;
            case ACQUIRE -> ACQUIRE;
            case AWAIT -> AWAIT;
            case SWEEP -> SWEEP;
            case ENTRIES -> ENTRIES;
            case PINNED -> PINNED;
            case EXECUTOR_LIVE -> EXECUTOR_LIVE;
            case SHUTDOWN -> throw new IllegalArgumentException("SHUTDOWN is not a wire command");
        };
    }

    /**
     * The command a wire byte stands for.
     *
     * @param code the byte.
     * @return the command.
     * @throws IllegalArgumentException for a byte that is no command.
     */
    public static CommandType commandType(final byte code)
    {
        return switch (code)
        {
            case LOOKUP -> CommandType.LOOKUP;
            case BEGIN -> CommandType.BEGIN;
            case COMPLETE -> CommandType.COMPLETE;
            case ABORT -> CommandType.ABORT;
            case INVALIDATE -> CommandType.INVALIDATE;
            case INVALIDATE_JOB -> CommandType.INVALIDATE_JOB;
            case INVALIDATE_EXECUTOR -> CommandType.INVALIDATE_EXECUTOR;
            case REMOVE_SESSION -> CommandType.REMOVE_SESSION;
            case ACQUIRE -> CommandType.ACQUIRE;
            case AWAIT -> CommandType.AWAIT;
            case SWEEP -> CommandType.SWEEP;
            case ENTRIES -> CommandType.ENTRIES;
            case PINNED -> CommandType.PINNED;
            case EXECUTOR_LIVE -> CommandType.EXECUTOR_LIVE;
            default -> throw new IllegalArgumentException("unknown registry command type " + code);
        };
    }

    /**
     * Encodes a whole command (header zeroed, see {@link #command}); the arguments it does not take are ignored.
     *
     * @param writer    the writer; reset.
     * @param type      the command.
     * @param key       its key, or null.
     * @param jobId     its job, or null.
     * @param id        its executor or session id, or null.
     * @param schema    its schema (COMPLETE), or null.
     * @param locations its locations (COMPLETE), or null.
     * @param live      the flag of an EXECUTOR_LIVE.
     * @return the writer, positioned after the body.
     */
    public static RecordWriter encode(
        final RecordWriter writer,
        final CommandType type,
        final CacheKey key,
        final String jobId,
        final String id,
        final DatasetSchema schema,
        final List<PartitionLocation> locations,
        final boolean live)
    {
        command(writer, code(type));
        if (type.takesKey())
        {
            writer.key(key);
        }
        if (type.takesJob())
        {
            writer.putString(jobId);
        }
        if (type == CommandType.COMPLETE)
        {
            writer.putString(schema.description()).locations(locations);
        }
        else if (type.idName() != null)
        {
            writer.putString(id);
        }
        if (type == CommandType.EXECUTOR_LIVE)
        {
            writer.putByte((byte) (live ? 1 : 0));
        }
        return writer;
    }

    /**
     * Encodes the answer to a command from the {@link dev.offcache.registry.command.CommandDispatcher}'s outcome
     * (for ENTRIES only the entries: the service writes its counters first).
     *
     * @param reply   the reply, after its status.
     * @param type    the command.
     * @param outcome the outcome.
     */
    @SuppressWarnings("unchecked")
    static void answer(final RecordWriter reply, final CommandType type, final Object outcome)
    {
        switch (type)
        {
            case LOOKUP -> reply.entry((CacheEntry) outcome);
            case BEGIN ->
            {
                if (outcome instanceof BeginOutcome.AlreadyPending pending)
                {
                    reply.putByte(BEGIN_PENDING).putString(pending.jobId());
                }
                else if (outcome instanceof BeginOutcome.AlreadyMaterialized materialized)
                {
                    reply.putByte(BEGIN_MATERIALIZED).materialized(materialized.entry());
                }
                else
                {
                    reply.putByte(BEGIN_CLAIMED);
                }
            }
            case COMPLETE -> reply.putByte((byte) ((CompletionOutcome) outcome).ordinal());
            case ABORT -> reply.putByte((byte) ((AbortOutcome) outcome).ordinal());
            case INVALIDATE, INVALIDATE_JOB, INVALIDATE_EXECUTOR, REMOVE_SESSION, SWEEP ->
                reply.removed((List<RemovedEntry>) outcome);
            case ACQUIRE ->
            {
                if (outcome instanceof BeginOutcome.AlreadyMaterialized materialized)
                {
                    reply.putByte(ACQUIRE_HIT).materialized(materialized.entry());
                }
                else if (outcome instanceof BeginOutcome.AlreadyPending pending)
                {
                    reply.putByte(ACQUIRE_WAIT).putString(pending.jobId());
                }
                else
                {
                    reply.putByte(ACQUIRE_CLAIMED);
                }
            }
            case AWAIT ->
            {
                if (outcome == null)
                {
                    reply.putByte(AWAIT_WAITING);
                }
                else
                {
                    reply.resolution((Resolution) outcome);
                }
            }
            case ENTRIES -> reply.entries((Map<CacheKey, CacheEntry>) outcome);
            case PINNED -> reply.stages((Set<StageRef>) outcome);
            case EXECUTOR_LIVE ->
            {
                // nothing but the status
            }
            default -> throw new IllegalArgumentException(type + " has no wire answer");
        }
    }

    /**
     * Decodes the answer {@link #answer} encoded, after the OK status: the dispatcher's outcome as the service had
     * it, except ENTRIES, which is a {@link RegistryClusterClient.Probe}.
     *
     * @param type   the command.
     * @param reader the reply, after its status.
     * @return the outcome (for AWAIT null while the waiter waits).
     */
    static Object decodeAnswer(final CommandType type, final RecordReader reader)
    {
        return switch (type)
        {
            case LOOKUP -> reader.entry();
            case BEGIN ->
            {
                final byte tag = reader.getByte();
                yield tag == BEGIN_CLAIMED ? BeginOutcome.CLAIMED :
                    tag == BEGIN_PENDING ? new BeginOutcome.AlreadyPending(reader.getString()) :
                    new BeginOutcome.AlreadyMaterialized(reader.materialized());
            }
            case COMPLETE -> CompletionOutcome.values()[reader.getByte()];
            case ABORT -> AbortOutcome.values()[reader.getByte()];
            case INVALIDATE, INVALIDATE_JOB, INVALIDATE_EXECUTOR, REMOVE_SESSION, SWEEP ->
            {
                final int count = reader.count();
                final RemovedEntry[] removed = new RemovedEntry[count];
                for (int i = 0; i < count; i++)
                {
                    removed[i] = new RemovedEntry(reader.key(), reader.entry());
                }
                yield List.of(removed);
            }
            case ACQUIRE ->
            {
                final byte tag = reader.getByte();
                yield tag == ACQUIRE_HIT ? new BeginOutcome.AlreadyMaterialized(reader.materialized()) :
                    tag == ACQUIRE_CLAIMED ? BeginOutcome.CLAIMED : new BeginOutcome.AlreadyPending(reader.getString());
            }
            case AWAIT -> reader.peekByte() == AWAIT_WAITING ? null : reader.resolution();
            case ENTRIES ->
            {
                final long appliedCommands = reader.getLong();
                final long duplicateCommands = reader.getLong();
                final int count = reader.count();
                final Map<CacheKey, CacheEntry> entries = new HashMap<>();
                for (int i = 0; i < count; i++)
                {
                    entries.put(reader.key(), reader.entry());
                }
                yield new RegistryClusterClient.Probe(appliedCommands, duplicateCommands, Map.copyOf(entries));
            }
            case PINNED ->
            {
                final int count = reader.count();
                final Set<StageRef> stages = new HashSet<>();
                for (int i = 0; i < count; i++)
                {
                    stages.add(new StageRef(reader.getString(), reader.getInt()));
                }
                yield Set.copyOf(stages);
            }
            case EXECUTOR_LIVE -> null;
            case SHUTDOWN -> throw new IllegalStateException("reply to unknown command type " + type);
        };
    }

    /**
     * One command's body decoded from the log; reused by the service for every command (single-threaded).
     */
    static final class Body extends Command
    {
        /** The flag of an EXECUTOR_LIVE. */
        boolean live;

        /**
         * Decodes the body {@link #encode} wrote.
         *
         * @param code   the command's byte.
         * @param reader the body.
         * @return this.
         * @throws IllegalArgumentException for an unknown command or a bad record.
         */
        Body decode(final byte code, final RecordReader reader)
        {
            final CommandType type = commandType(code);
            final CacheKey key = type.takesKey() ? reader.key() : null;
            final String jobId = type.takesJob() ? reader.getString() : null;
            DatasetSchema schema = null;
            List<PartitionLocation> locations = null;
            String id = null;
            if (type == CommandType.COMPLETE)
            {
                schema = new DatasetSchema(reader.getString());
                locations = reader.locations();
            }
            else if (type.idName() != null)
            {
                id = reader.getString();
            }
            live = type == CommandType.EXECUTOR_LIVE && reader.getByte() != 0;
            arguments(type, key, jobId, id, schema, locations);
            return this;
        }
    }
}
