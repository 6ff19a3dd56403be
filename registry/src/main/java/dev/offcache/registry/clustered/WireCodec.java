package dev.offcache.registry.clustered;

import java.util.List;
import java.util.Map;
import java.util.Set;

import org.agrona.DirectBuffer;
import org.agrona.ExpandableArrayBuffer;
import org.agrona.MutableDirectBuffer;

import dev.offcache.registry.codec.FieldReader;
import dev.offcache.registry.codec.LocationCodec;
import dev.offcache.registry.front.Resolution;
import dev.offcache.registry.state.CacheEntry;
import dev.offcache.registry.state.CacheKey;
import dev.offcache.registry.state.DatasetSchema;
import dev.offcache.registry.state.Materialized;
import dev.offcache.registry.state.PartitionLocation;
import dev.offcache.registry.state.Pending;
import dev.offcache.registry.state.RemovedEntry;
import dev.offcache.registry.state.StageRef;

/**
 * The bytes the clustered registry puts on the wire and into its snapshots, in the style of the journal's
 * {@code ChangeCodec} (little-endian, strings as {@code length:int32 utf8}):
 *
 * <pre>
 *   command  := type:int8 clientId:int64 sequence:int64 floor:int64 body      (ingress, one message)
 *   body     := LOOKUP key | BEGIN key job | COMPLETE key job schema locations | ABORT key job
 *             | INVALIDATE key | INVALIDATE_JOB key job | INVALIDATE_EXECUTOR id | REMOVE_SESSION id
 *             | ACQUIRE key job | AWAIT key | SWEEP | ENTRIES | PINNED | EXECUTOR_LIVE id live:int8
 *   egress   := kind:int8 sequence:int64 chunkIndex:int32 chunkCount:int32 chunk  (REPLY or RELEASE)
 *   reply    := status:int8 (OK result | REFUSED message)
 *   entry    := 0 | 1 job | 2 materialized;   materialized := job schema atMs:int64 locations
 *   locations := see {@link LocationCodec}: written with CRCs; logs, snapshots and cached answers written before
 *               CRCs were recorded read without
 * </pre>
 *
 * A reply or release longer than one egress message is split into chunks that the client reassembles by sequence.
 * {@code floor} is the client's lowest sequence still waiting for an answer: the service forgets the cached
 * answers below it. A {@link Writer} owns one growable heap buffer; a {@link Reader} reads someone else's buffer.
 * Neither is thread-safe.
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
    /** Await answers (and release payloads use the first two). */
    static final byte RESOLUTION_READY = 0;
    static final byte RESOLUTION_RELEASED = 1;
    static final byte AWAIT_WAITING = 2;
    /** Begin answers. */
    static final byte BEGIN_CLAIMED = 0;
    static final byte BEGIN_PENDING = 1;
    static final byte BEGIN_MATERIALIZED = 2;

    private WireCodec()
    {
    }

    /**
     * Appends fields to a growable heap buffer it owns.
     */
    public static final class Writer
    {
        private final ExpandableArrayBuffer buffer;
        private int position;

        /**
         * A writer with an initial capacity.
         *
         * @param initialCapacity bytes.
         */
        public Writer(final int initialCapacity)
        {
            buffer = new ExpandableArrayBuffer(initialCapacity);
        }

        /**
         * Starts over at offset 0.
         *
         * @return this.
         */
        public Writer reset()
        {
            position = 0;
            return this;
        }

        /**
         * The buffer (valid up to {@link #position()}).
         *
         * @return the buffer.
         */
        public MutableDirectBuffer buffer()
        {
            return buffer;
        }

        /**
         * Bytes written.
         *
         * @return the position.
         */
        public int position()
        {
            return position;
        }

        /**
         * A copy of the bytes written.
         *
         * @return a new array.
         */
        public byte[] toBytes()
        {
            final byte[] bytes = new byte[position];
            buffer.getBytes(0, bytes);
            return bytes;
        }

        Writer putByte(final byte value)
        {
            buffer.putByte(position, value);
            position += 1;
            return this;
        }

        Writer putInt(final int value)
        {
            buffer.putInt(position, value);
            position += Integer.BYTES;
            return this;
        }

        Writer putLong(final long value)
        {
            buffer.putLong(position, value);
            position += Long.BYTES;
            return this;
        }

        Writer putString(final String value)
        {
            position += buffer.putStringUtf8(position, value);
            return this;
        }

        Writer putBytes(final DirectBuffer source, final int offset, final int length)
        {
            buffer.putBytes(position, source, offset, length);
            position += length;
            return this;
        }

        Writer putBytes(final byte[] source)
        {
            buffer.putBytes(position, source);
            position += source.length;
            return this;
        }

        Writer commandHeader(final byte type)
        {
            reset();
            putByte(type);
            putLong(0).putLong(0).putLong(0);
            return this;
        }

        Writer key(final CacheKey key)
        {
            return putString(key.sessionId()).putString(key.cacheId());
        }

        Writer materialized(final Materialized entry)
        {
            putString(entry.jobId());
            putString(entry.schema().description());
            putLong(entry.materializedAtMs());
            return locations(entry.locations());
        }

        Writer locations(final List<PartitionLocation> locations)
        {
            position += LocationCodec.encode(buffer, position, locations);
            return this;
        }

        Writer entry(final CacheEntry entry)
        {
            if (entry == null)
            {
                return putByte((byte) 0);
            }
            if (entry instanceof Pending pending)
            {
                return putByte((byte) 1).putString(pending.jobId());
            }
            return putByte((byte) 2).materialized((Materialized) entry);
        }

        Writer removed(final List<RemovedEntry> removed)
        {
            putInt(removed.size());
            for (final RemovedEntry entry : removed)
            {
                key(entry.key()).entry(entry.entry());
            }
            return this;
        }

        Writer entries(final Map<CacheKey, CacheEntry> entries)
        {
            putInt(entries.size());
            for (final Map.Entry<CacheKey, CacheEntry> entry : entries.entrySet())
            {
                key(entry.getKey()).entry(entry.getValue());
            }
            return this;
        }

        Writer stages(final Set<StageRef> stages)
        {
            putInt(stages.size());
            for (final StageRef stage : stages)
            {
                putString(stage.jobId()).putInt(stage.stageId());
            }
            return this;
        }

        Writer resolution(final Resolution resolution)
        {
            if (resolution instanceof Resolution.Ready ready)
            {
                return putByte(RESOLUTION_READY).materialized(ready.entry());
            }
            return putByte(RESOLUTION_RELEASED).putByte((byte) ((Resolution.Released) resolution).reason().ordinal());
        }
    }

    /**
     * Reads the wire format's fields from a region of a buffer, refusing to read past its end.
     */
    public static final class Reader extends FieldReader
    {
        @Override
        public Reader wrap(final DirectBuffer source, final int offset, final int length)
        {
            super.wrap(source, offset, length);
            return this;
        }

        CacheKey key()
        {
            return new CacheKey(getString(), getString());
        }

        Materialized materialized()
        {
            final String jobId = getString();
            final DatasetSchema schema = new DatasetSchema(getString());
            final long atMs = getLong();
            return new Materialized(jobId, schema, locations(), atMs);
        }

        List<PartitionLocation> locations()
        {
            return LocationCodec.decode(this);
        }

        CacheEntry entry()
        {
            final byte tag = getByte();
            switch (tag)
            {
                case 0:
                    return null;
                case 1:
                    return new Pending(getString());
                case 2:
                    return materialized();
                default:
                    throw new IllegalArgumentException("unknown entry tag " + tag);
            }
        }

        Resolution resolution()
        {
            final byte tag = getByte();
            if (tag == RESOLUTION_READY)
            {
                return new Resolution.Ready(materialized());
            }
            if (tag == RESOLUTION_RELEASED)
            {
                return new Resolution.Released(Resolution.Reason.values()[getByte()]);
            }
            throw new IllegalArgumentException("unknown resolution tag " + tag);
        }
    }
}
