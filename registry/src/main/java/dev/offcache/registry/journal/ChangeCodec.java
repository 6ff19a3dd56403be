package dev.offcache.registry.journal;

import java.util.List;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import dev.offcache.registry.codec.RecordReader;
import dev.offcache.registry.codec.RecordWriter;
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
 *   effect  := CLAIM key jobId | PROMOTE key materialized | REMOVE key
 *   key, materialized := see {@link RecordWriter} (the same bytes as on the cluster's wire; locations with
 *              CRCs, records written before CRCs were recorded read without)
 *   string  := length:int32 utf8-bytes            (little-endian throughout)
 * </pre>
 *
 * A snapshot body is the same effect list (CLAIM and PROMOTE only) describing the whole state. Owns one growable
 * heap buffer; used only by the registry's writer.
 */
public final class ChangeCodec
{
    static final byte CLAIM = 1;
    static final byte PROMOTE = 2;
    static final byte REMOVE = 3;

    private final RecordWriter writer = new RecordWriter(4096);
    private int effects;

    void reset(final int start)
    {
        writer.position(start + Integer.BYTES);
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
        writer.buffer().putInt(start, effects);
        return writer.position();
    }

    MutableDirectBuffer buffer()
    {
        return writer.buffer();
    }

    void claim(final CacheKey key, final String jobId)
    {
        effect(CLAIM, key).putString(jobId);
    }

    void promote(final CacheKey key, final Materialized entry)
    {
        effect(PROMOTE, key).materialized(entry);
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

    private RecordWriter effect(final byte type, final CacheKey key)
    {
        effects++;
        return writer.putByte(type).key(key);
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
        final RecordReader reader = new RecordReader().wrap(source, offset, length);
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

    private static void applyEffects(final RecordReader reader, final int count, final CacheStateMachine state)
    {
        for (int i = 0; i < count; i++)
        {
            final byte type = reader.getByte();
            final CacheKey key = reader.key();
            switch (type)
            {
                case CLAIM:
                    state.restoreClaim(key, reader.getString());
                    break;
                case PROMOTE:
                    state.restorePromotion(key, reader.materialized());
                    break;
                case REMOVE:
                    state.restoreRemoval(key);
                    break;
                default:
                    throw new IllegalArgumentException("unknown registry change type " + type);
            }
        }
    }
}
