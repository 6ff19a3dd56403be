package dev.offcache.transport.source;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import dev.offcache.core.ref.AbstractRefCounted;
import dev.offcache.transport.wire.ErrorCode;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * A {@link PayloadSource} over registered Agrona buffers (off-heap views of slabs, mapped regions, or anything
 * else the caller owns). The caller keeps ownership of each buffer and must keep it valid until it is
 * {@link #remove removed} and {@link #openHandles()} shows no server still reads it. Thread-safe.
 */
public final class DirectBufferPayloadSource implements PayloadSource
{
    private final Map<String, DirectBuffer> blocks = new ConcurrentHashMap<>();
    private final AtomicInteger openHandles = new AtomicInteger();

    /**
     * Make {@code buffer} (its whole capacity) available under {@code id}.
     *
     * @param id     the id clients fetch (ASCII, non-empty, at most 512 bytes).
     * @param buffer the bytes; not copied.
     * @return this.
     */
    public DirectBufferPayloadSource register(final String id, final DirectBuffer buffer)
    {
        if (id == null || id.isEmpty() || id.length() > 512)
        {
            throw new IllegalArgumentException("block id must be 1..512 ASCII characters: " + id);
        }
        blocks.put(id, buffer);
        return this;
    }

    /**
     * Stop serving {@code id}; requests already being served keep their view.
     *
     * @param id the id.
     * @return true if it was registered.
     */
    public boolean remove(final String id)
    {
        return blocks.remove(id) != null;
    }

    /**
     * Returns handles opened and not yet released (for leak checks).
     *
     * @return handles opened and not yet released (for leak checks).
     */
    public int openHandles()
    {
        return openHandles.get();
    }

    /**
     * {@inheritDoc}
     */
    public PayloadHandle open(final DirectBuffer id, final int idOffset, final int idLength)
        throws PayloadSourceException
    {
        final String key = id.getStringWithoutLengthAscii(idOffset, idLength);
        final DirectBuffer buffer = blocks.get(key);
        if (buffer == null)
        {
            throw new PayloadSourceException(ErrorCode.NOT_FOUND, "no block with id '" + key + "'");
        }
        openHandles.incrementAndGet();
        return new Handle(buffer);
    }

    private final class Handle extends AbstractRefCounted implements PayloadHandle
    {
        private final DirectBuffer buffer;

        Handle(final DirectBuffer buffer)
        {
            this.buffer = buffer;
        }

        public long length()
        {
            return buffer.capacity();
        }

        public void wrap(final UnsafeBuffer target, final long offset, final int length)
        {
            target.wrap(buffer, (int) offset, length);
        }

        @Override
        protected void onLastRelease()
        {
            openHandles.decrementAndGet();
        }

        @Override
        public String toString()
        {
            return "block handle of " + length() + " bytes";
        }
    }
}
