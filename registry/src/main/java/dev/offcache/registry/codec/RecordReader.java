package dev.offcache.registry.codec;

import java.util.List;

import org.agrona.DirectBuffer;

import dev.offcache.registry.api.Resolution;
import dev.offcache.registry.state.CacheEntry;
import dev.offcache.registry.state.CacheKey;
import dev.offcache.registry.state.DatasetSchema;
import dev.offcache.registry.state.Materialized;
import dev.offcache.registry.state.PartitionLocation;
import dev.offcache.registry.state.Pending;

/**
 * Reads what a {@link RecordWriter} wrote (keys, entries, locations in either of their formats, resolutions) from
 * a region of a buffer, refusing to read past its end: a truncated field or a value the registry refuses (an empty
 * id, a bad CRC) throws {@link IllegalArgumentException}. Views the caller's buffer, which must stay valid while
 * it is read; reusable through {@link #wrap}; not thread-safe.
 */
public final class RecordReader extends FieldReader
{
    @Override
    public RecordReader wrap(final DirectBuffer source, final int offset, final int length)
    {
        super.wrap(source, offset, length);
        return this;
    }

    /**
     * Reads a key.
     *
     * @return the key.
     */
    public CacheKey key()
    {
        return new CacheKey(getString(), getString());
    }

    /**
     * Reads a materialized entry.
     *
     * @return the entry.
     */
    public Materialized materialized()
    {
        final String jobId = getString();
        final DatasetSchema schema = new DatasetSchema(getString());
        final long atMs = getLong();
        return new Materialized(jobId, schema, locations(), atMs);
    }

    /**
     * Reads a location list.
     *
     * @return the locations.
     */
    public List<PartitionLocation> locations()
    {
        return LocationCodec.decode(this);
    }

    /**
     * Reads a tagged entry.
     *
     * @return the entry, or null for none.
     */
    public CacheEntry entry()
    {
        final byte tag = getByte();
        switch (tag)
        {
            case RecordWriter.ENTRY_ABSENT:
                return null;
            case RecordWriter.ENTRY_PENDING:
                return new Pending(getString());
            case RecordWriter.ENTRY_MATERIALIZED:
                return materialized();
            default:
                throw new IllegalArgumentException("unknown entry tag " + tag);
        }
    }

    /**
     * Reads how a wait ended.
     *
     * @return the resolution.
     */
    public Resolution resolution()
    {
        final byte tag = getByte();
        if (tag == RecordWriter.RESOLUTION_READY)
        {
            return new Resolution.Ready(materialized());
        }
        if (tag == RecordWriter.RESOLUTION_RELEASED)
        {
            final int reason = getByte();
            if (reason < 0 || reason >= Resolution.Reason.values().length)
            {
                throw new IllegalArgumentException("unknown release reason " + reason);
            }
            return new Resolution.Released(Resolution.Reason.values()[reason]);
        }
        throw new IllegalArgumentException("unknown resolution tag " + tag);
    }
}
