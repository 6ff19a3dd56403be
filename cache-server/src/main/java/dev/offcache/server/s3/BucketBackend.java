package dev.offcache.server.s3;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

import dev.offcache.range.origin.ListPage;
import dev.offcache.range.origin.ObjectInfo;

/**
 * What the S3 endpoint asks of the storage behind one bucket. Object metadata comes from the cache (one origin HEAD
 * per object version, remembered with its size), listings and {@code HeadBucket} straight from the origin, and
 * pass-through writes go to the origin and then warm the cache. Implementations are thread-safe.
 */
public interface BucketBackend
{
    /**
     * The size, time and tag of an object (remembered by the cache for the version it holds).
     *
     * @param key a validated key.
     * @return the metadata; fails with {@link dev.offcache.range.origin.ObjectNotFoundException} when missing.
     */
    CompletableFuture<ObjectInfo> stat(String key);

    /**
     * One page of a listing, from the origin (never cached).
     *
     * @param request what to list.
     * @return the page.
     */
    CompletableFuture<ListPage> list(ListPage.Request request);

    /**
     * Whether the origin's container exists and answers (never cached).
     *
     * @return completes when it does.
     */
    CompletableFuture<Void> probe();

    /**
     * Writes an object through to the origin, forgets what the cache knew of the key, and warms the cache with the
     * new version.
     *
     * @param key   a validated key.
     * @param bytes the object.
     * @return the new version's metadata once the origin has it.
     */
    CompletableFuture<ObjectInfo> put(String key, ByteBuffer bytes);

    /**
     * Deletes an object in the origin and forgets what the cache knew of it.
     *
     * @param key a validated key.
     * @return completes when it is gone.
     */
    CompletableFuture<Void> delete(String key);
}
