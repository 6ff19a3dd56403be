package dev.offcache.server.s3;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

import dev.offcache.range.origin.ListPage;
import dev.offcache.range.origin.ObjectInfo;
import dev.offcache.range.origin.ObjectStore;

/**
 * A bucket backend straight over an origin, nothing cached: listings, probes and writes as every backend does them,
 * and metadata from an origin HEAD per call. The cache's backend extends it and takes metadata and warming from the
 * engine instead. Thread-safe; does not own the origin.
 */
public class OriginBackend implements BucketBackend
{
    private final ObjectStore origin;

    /**
     * A backend.
     *
     * @param origin the origin (not owned).
     */
    public OriginBackend(final ObjectStore origin)
    {
        this.origin = origin;
    }

    /**
     * The origin.
     *
     * @return the origin.
     */
    protected final ObjectStore origin()
    {
        return origin;
    }

    @Override
    public CompletableFuture<ObjectInfo> stat(final String key)
    {
        return origin.stat(key);
    }

    @Override
    public CompletableFuture<ListPage> list(final ListPage.Request request)
    {
        return origin.listPage(request);
    }

    @Override
    public CompletableFuture<Void> probe()
    {
        return origin.probe();
    }

    @Override
    public CompletableFuture<ObjectInfo> put(final String key, final ByteBuffer bytes)
    {
        return origin.put(key, bytes).thenCompose((v) -> origin.stat(key));
    }

    @Override
    public CompletableFuture<Void> delete(final String key)
    {
        return origin.delete(key);
    }
}
