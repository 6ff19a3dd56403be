package dev.offcache.registry.clustered;

import dev.offcache.registry.codec.RecordReader;
import dev.offcache.registry.codec.RecordWriter;

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
 *   reply    := status:int8 (OK result | REFUSED message)
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
}
