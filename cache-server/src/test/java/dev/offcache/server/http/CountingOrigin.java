package dev.offcache.server.http;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;

import dev.offcache.server.source.LocalDirectoryOrigin;
import dev.offcache.server.source.Origin;

/**
 * A local-directory origin that counts block reads and fails on demand: every read of a key starting with "fail",
 * or, for keys starting with "failmid", every read past the first block.
 */
final class CountingOrigin implements Origin
{
    private final LocalDirectoryOrigin delegate;
    final AtomicLong reads = new AtomicLong();

    CountingOrigin(final Path root)
    {
        this.delegate = new LocalDirectoryOrigin(root);
    }

    @Override
    public String namespace()
    {
        return delegate.namespace();
    }

    @Override
    public long size(final String key) throws IOException
    {
        return delegate.size(key);
    }

    @Override
    public void read(final String key, final long position, final ByteBuffer target) throws IOException
    {
        reads.incrementAndGet();
        if (key.startsWith("fail") && (!key.startsWith("failmid") || position >= ServerHarness.BLOCK))
        {
            throw new IOException("injected origin failure");
        }
        delegate.read(key, position, target);
    }
}
