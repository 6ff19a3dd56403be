package dev.offcache.registry.codec;

import java.util.List;
import java.util.Map;
import java.util.Set;

import org.agrona.DirectBuffer;
import org.agrona.ExpandableArrayBuffer;
import org.agrona.MutableDirectBuffer;

import dev.offcache.registry.api.Resolution;
import dev.offcache.registry.state.CacheEntry;
import dev.offcache.registry.state.CacheKey;
import dev.offcache.registry.state.Materialized;
import dev.offcache.registry.state.PartitionLocation;
import dev.offcache.registry.state.Pending;
import dev.offcache.registry.state.RemovedEntry;
import dev.offcache.registry.state.StageRef;

/**
 * Writes the registry's records, the same bytes wherever they go: the journal's change records and snapshots
 * ({@code journal.ChangeCodec}) and the cluster's commands, replies and snapshots ({@code clustered.WireCodec});
 * {@link RecordReader} reads them back. Little-endian, strings as {@code length:int32 utf8}:
 *
 * <pre>
 *   key          := sessionId cacheId
 *   materialized := jobId schema materializedAtMs:int64 locations      (locations: see {@link LocationCodec})
 *   entry        := ENTRY_ABSENT | ENTRY_PENDING jobId | ENTRY_MATERIALIZED materialized
 *   removed      := count:int32 (key entry)*
 *   entries      := count:int32 (key entry)*
 *   stages       := count:int32 (jobId stageId:int32)*
 *   resolution   := RESOLUTION_READY materialized | RESOLUTION_RELEASED reason:int8
 * </pre>
 *
 * Owns one growable heap buffer, written from offset 0 to {@link #position()}. Not thread-safe.
 */
public final class RecordWriter
{
    /** Entry tag: no entry. */
    public static final byte ENTRY_ABSENT = 0;
    /** Entry tag: a Pending entry follows. */
    public static final byte ENTRY_PENDING = 1;
    /** Entry tag: a materialized entry follows. */
    public static final byte ENTRY_MATERIALIZED = 2;
    /** Resolution tag: ready, a materialized entry follows. */
    public static final byte RESOLUTION_READY = 0;
    /** Resolution tag: released, the reason's ordinal follows. */
    public static final byte RESOLUTION_RELEASED = 1;

    private final ExpandableArrayBuffer buffer;
    private int position;

    /**
     * A writer with an initial capacity.
     *
     * @param initialCapacity bytes.
     */
    public RecordWriter(final int initialCapacity)
    {
        buffer = new ExpandableArrayBuffer(initialCapacity);
    }

    /**
     * Starts over at offset 0.
     *
     * @return this.
     */
    public RecordWriter reset()
    {
        position = 0;
        return this;
    }

    /**
     * Moves the write position (to leave room for a header written later, for example).
     *
     * @param newPosition the offset the next field goes to.
     * @return this.
     */
    public RecordWriter position(final int newPosition)
    {
        position = newPosition;
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

    /**
     * Appends a byte.
     *
     * @param value the byte.
     * @return this.
     */
    public RecordWriter putByte(final byte value)
    {
        buffer.putByte(position, value);
        position += 1;
        return this;
    }

    /**
     * Appends an int.
     *
     * @param value the int.
     * @return this.
     */
    public RecordWriter putInt(final int value)
    {
        buffer.putInt(position, value);
        position += Integer.BYTES;
        return this;
    }

    /**
     * Appends a long.
     *
     * @param value the long.
     * @return this.
     */
    public RecordWriter putLong(final long value)
    {
        buffer.putLong(position, value);
        position += Long.BYTES;
        return this;
    }

    /**
     * Appends a string.
     *
     * @param value the string.
     * @return this.
     */
    public RecordWriter putString(final String value)
    {
        position += buffer.putStringUtf8(position, value);
        return this;
    }

    /**
     * Appends bytes from a buffer.
     *
     * @param source the buffer.
     * @param offset where the bytes start.
     * @param length how many.
     * @return this.
     */
    public RecordWriter putBytes(final DirectBuffer source, final int offset, final int length)
    {
        buffer.putBytes(position, source, offset, length);
        position += length;
        return this;
    }

    /**
     * Appends bytes.
     *
     * @param source the bytes.
     * @return this.
     */
    public RecordWriter putBytes(final byte[] source)
    {
        buffer.putBytes(position, source);
        position += source.length;
        return this;
    }

    /**
     * Appends a key.
     *
     * @param key the key.
     * @return this.
     */
    public RecordWriter key(final CacheKey key)
    {
        return putString(key.sessionId()).putString(key.cacheId());
    }

    /**
     * Appends a materialized entry.
     *
     * @param entry the entry.
     * @return this.
     */
    public RecordWriter materialized(final Materialized entry)
    {
        putString(entry.jobId());
        putString(entry.schema().description());
        putLong(entry.materializedAtMs());
        return locations(entry.locations());
    }

    /**
     * Appends a location list (with CRCs).
     *
     * @param locations the locations.
     * @return this.
     */
    public RecordWriter locations(final List<PartitionLocation> locations)
    {
        position += LocationCodec.encode(buffer, position, locations);
        return this;
    }

    /**
     * Appends an entry, tagged.
     *
     * @param entry the entry, or null for none.
     * @return this.
     */
    public RecordWriter entry(final CacheEntry entry)
    {
        if (entry == null)
        {
            return putByte(ENTRY_ABSENT);
        }
        if (entry instanceof Pending pending)
        {
            return putByte(ENTRY_PENDING).putString(pending.jobId());
        }
        return putByte(ENTRY_MATERIALIZED).materialized((Materialized) entry);
    }

    /**
     * Appends removed entries.
     *
     * @param removed the removals.
     * @return this.
     */
    public RecordWriter removed(final List<RemovedEntry> removed)
    {
        putInt(removed.size());
        for (final RemovedEntry entry : removed)
        {
            key(entry.key()).entry(entry.entry());
        }
        return this;
    }

    /**
     * Appends a key to entry map.
     *
     * @param entries the entries.
     * @return this.
     */
    public RecordWriter entries(final Map<CacheKey, CacheEntry> entries)
    {
        putInt(entries.size());
        for (final Map.Entry<CacheKey, CacheEntry> entry : entries.entrySet())
        {
            key(entry.getKey()).entry(entry.getValue());
        }
        return this;
    }

    /**
     * Appends a stage set.
     *
     * @param stages the stages.
     * @return this.
     */
    public RecordWriter stages(final Set<StageRef> stages)
    {
        putInt(stages.size());
        for (final StageRef stage : stages)
        {
            putString(stage.jobId()).putInt(stage.stageId());
        }
        return this;
    }

    /**
     * Appends how a wait ended.
     *
     * @param resolution the resolution.
     * @return this.
     */
    public RecordWriter resolution(final Resolution resolution)
    {
        if (resolution instanceof Resolution.Ready ready)
        {
            return putByte(RESOLUTION_READY).materialized(ready.entry());
        }
        return putByte(RESOLUTION_RELEASED).putByte((byte) ((Resolution.Released) resolution).reason().ordinal());
    }
}
