package dev.offcache.registry.journal;

import java.util.List;

import org.agrona.DirectBuffer;
import org.agrona.ExpandableArrayBuffer;
import org.agrona.MutableDirectBuffer;

import dev.offcache.registry.codec.FieldReader;
import dev.offcache.registry.codec.LocationCodec;
import dev.offcache.registry.state.CacheKey;
import dev.offcache.registry.state.CacheStateMachine;
import dev.offcache.registry.state.DatasetSchema;
import dev.offcache.registry.state.Materialized;
import dev.offcache.registry.state.PartitionLocation;

/**
 * The bytes of the registry's journal records and snapshots. A record is one command's changes, applied all or
 * nothing on replay (the journal checks each record's CRC32C, so a record is never half there):
 *
 * <pre>
 *   record  := effectCount:int32 effect*
 *   effect  := CLAIM   sessionId cacheId jobId
 *            | PROMOTE sessionId cacheId jobId schema materializedAtMs:int64 locations
 *            | REMOVE  sessionId cacheId
 *   locations := see {@link LocationCodec} (with CRCs; records written before CRCs were recorded read without)
 *   string  := length:int32 utf8-bytes            (little-endian throughout)
 * </pre>
 *
 * A snapshot body is the same effect list (CLAIM and PROMOTE only) describing the whole state. Owns one growable
 * heap buffer; used only by the registry thread.
 */
public final class ChangeCodec
{
    static final byte CLAIM = 1;
    static final byte PROMOTE = 2;
    static final byte REMOVE = 3;

    private final ExpandableArrayBuffer buffer = new ExpandableArrayBuffer(4096);
    private int limit;
    private int effects;

    void reset(final int start)
    {
        limit = start + Integer.BYTES;
        effects = 0;
    }

    int effects()
    {
        return effects;
    }

    /**
     * Finishes the effect list started at {@code start} by {@link #reset(int)}.
     *
     * @param start where the list began.
     * @return the end of the encoded bytes.
     */
    int finish(final int start)
    {
        buffer.putInt(start, effects);
        return limit;
    }

    MutableDirectBuffer buffer()
    {
        return buffer;
    }

    void claim(final CacheKey key, final String jobId)
    {
        effect(CLAIM, key);
        putString(jobId);
    }

    void promote(final CacheKey key, final Materialized entry)
    {
        effect(PROMOTE, key);
        putString(entry.jobId());
        putString(entry.schema().description());
        buffer.putLong(limit, entry.materializedAtMs());
        limit += Long.BYTES;
        limit += LocationCodec.encode(buffer, limit, entry.locations());
    }

    void remove(final CacheKey key)
    {
        effect(REMOVE, key);
    }

    /**
     * An upper bound of the encoded size of a command that claims, promotes and removes the key (the most a
     * completion can add to a record), without encoding it.
     *
     * @param key       the key.
     * @param schema    the schema.
     * @param jobId     the job.
     * @param locations the locations.
     * @return the bound in bytes.
     */
    public static long maxCompletionBytes(
        final CacheKey key, final DatasetSchema schema, final String jobId, final List<PartitionLocation> locations)
    {
        long bytes = Integer.BYTES + 3L * (1 + bound(key.sessionId()) + bound(key.cacheId())) + 2L * bound(jobId) +
            bound(schema.description()) + Long.BYTES + LocationCodec.HEADER_BYTES;
        for (final PartitionLocation location : locations)
        {
            bytes += LocationCodec.maxBytes(location);
        }
        return bytes;
    }

    private static long bound(final String value)
    {
        return Integer.BYTES + 3L * value.length();
    }

    private void effect(final byte type, final CacheKey key)
    {
        buffer.putByte(limit, type);
        limit += 1;
        putString(key.sessionId());
        putString(key.cacheId());
        effects++;
    }

    private void putString(final String value)
    {
        limit += buffer.putStringUtf8(limit, value);
    }

    /**
     * Applies an encoded effect list to a state machine (recovery).
     *
     * @param source the bytes.
     * @param offset where the list starts.
     * @param length its length.
     * @param state  the state machine.
     * @param where  names the record or file, for the message if the bytes do not decode.
     * @return the number of effects applied.
     * @throws IllegalStateException naming {@code where} when the bytes are not a valid effect list.
     */
    static int apply(
        final DirectBuffer source, final int offset, final int length, final CacheStateMachine state,
        final String where)
    {
        final FieldReader reader = new FieldReader().wrap(source, offset, length);
        final int count;
        try
        {
            count = reader.getInt();
            applyEffects(reader, count, state);
        }
        catch (final IllegalArgumentException ex)
        {
            // truncated fields and refused values alike: the record cannot be trusted
            throw new IllegalStateException("invalid registry change in " + where + ": " + ex.getMessage(), ex);
        }
        if (reader.remaining() != 0)
        {
            throw new IllegalStateException(reader.remaining() + " trailing bytes in " + where);
        }
        return count;
    }

    private static void applyEffects(final FieldReader reader, final int count, final CacheStateMachine state)
    {
        for (int i = 0; i < count; i++)
        {
            final byte type = reader.getByte();
            final CacheKey key = new CacheKey(reader.getString(), reader.getString());
            switch (type)
            {
                case CLAIM:
                    state.restoreClaim(key, reader.getString());
                    break;
                case PROMOTE:
                    state.restorePromotion(key, readMaterialized(reader));
                    break;
                case REMOVE:
                    state.restoreRemoval(key);
                    break;
                default:
                    throw new IllegalArgumentException("unknown registry change type " + type);
            }
        }
    }

    private static Materialized readMaterialized(final FieldReader reader)
    {
        final String jobId = reader.getString();
        final DatasetSchema schema = new DatasetSchema(reader.getString());
        final long materializedAtMs = reader.getLong();
        return new Materialized(jobId, schema, LocationCodec.decode(reader), materializedAtMs);
    }
}
