package dev.offcache.range.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

import org.agrona.concurrent.UnsafeBuffer;

import dev.offcache.range.engine.RangeCache;
import dev.offcache.range.engine.RangeCacheBuilder;
import dev.offcache.range.origin.FileSystemOrigin;

/**
 * A real local origin in a temporary directory, wrapped in a {@link CountingOrigin}, with a slab store, and the
 * engine over them. Closing it closes the engine and checks that no slab slot or staging buffer leaked.
 */
public final class EngineFixture implements AutoCloseable
{
    public final Path root;
    public final CountingOrigin origin;
    public final SlabBlockStore store;
    public final RangeCache cache;

    public EngineFixture(final int blockSize, final long storeBytes, final UnaryOperator<RangeCacheBuilder> settings)
    {
        try
        {
            root = Files.createTempDirectory("offcache-range-test");
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
        origin = new CountingOrigin(new FileSystemOrigin(root, 4));
        store = storeBytes > 0 ? new SlabBlockStore(storeBytes, blockSize) : null;
        RangeCacheBuilder builder = RangeCache.newBuilder().origin(origin).blockSize(blockSize);
        builder = store != null ? builder.store(store) : builder.l1CapacityBytes(0);
        cache = settings.apply(builder).build();
    }

    public byte[] object(final String key, final int size, final long seed)
    {
        return TestObjects.write(root, key, size, seed);
    }

    public byte[] read(final String key, final long position, final int length)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[length]);
        cache.read(key, position, buffer, 0, length);
        return buffer.byteArray();
    }

    public int liveStagingBuffers()
    {
        return cache.fetcher().staging().liveBuffers();
    }

    @Override
    public void close()
    {
        cache.close();
        if (store != null && store.slab().liveSlots() != 0)
        {
            throw new AssertionError("slab slots leaked: " + store.slab().liveSlots());
        }
        // A fetch thread wakes its waiters before it returns its staging buffer: give it a moment.
        final long deadline = System.nanoTime() + 2_000_000_000L;
        while (liveStagingBuffers() != 0 && System.nanoTime() < deadline)
        {
            Thread.onSpinWait();
        }
        if (liveStagingBuffers() != 0)
        {
            throw new AssertionError("staging buffers leaked: " + liveStagingBuffers());
        }
        try (Stream<Path> files = Files.walk(root))
        {
            files.sorted(Comparator.reverseOrder()).forEach((path) -> path.toFile().delete());
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }
}
