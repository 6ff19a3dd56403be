package dev.offcache.server.s3;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import java.util.function.Supplier;

import dev.offcache.range.engine.ByteRange;
import dev.offcache.range.engine.RangeCache;
import dev.offcache.range.origin.MultipartUploads;
import dev.offcache.range.origin.ObjectInfo;
import dev.offcache.range.origin.ObjectMetadata;
import dev.offcache.range.origin.ObjectStore;
import dev.offcache.server.tier.ObjectName;
import dev.offcache.server.tier.TieredBlockStore;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The bucket backend of the L2 server: object metadata from the engine ({@link RangeCache#statAsync}, one origin
 * HEAD per object version, remembered with its size), listings, probes and multipart calls from the bucket's origin,
 * and pass-through writes (a put, a delete, a completed multipart upload) after which the engine forgets the key, the
 * old version's SSD blocks are dropped, and the SSD tier is warmed with the new object, as the L2 client's write-time
 * warming does. With several buckets on one server the engine knows an object as {@code BUCKET/KEY}
 * ({@link BucketOrigins}); with one, by its key. Thread-safe; owns nothing.
 */
public final class EngineBackend extends OriginBackend
{
    /** Part ranges remembered: 100 bytes or so each. */
    private static final int MAX_PARTS = 100_000;
    private static final Logger LOG = LoggerFactory.getLogger(EngineBackend.class);

    private final RangeCache cache;
    private final TieredBlockStore tiers;
    private final String keyPrefix;
    private final OriginBackend straight;
    /**
     * Where the parts of multipart objects lie, as the origin answered, by key, version tag and part: a rewritten
     * object's parts are asked again, the old version's age out.
     */
    private final Cache<PartKey, MultipartUploads.PartRange> parts =
        Caffeine.newBuilder().maximumSize(MAX_PARTS).build();

    /**
     * The backend of the one bucket over an engine: engine keys are the bucket's keys.
     *
     * @param cache the engine (its origin serves listings and probes).
     * @param tiers the engine's tiered store, whose SSD blocks of a rewritten object are dropped, or {@code null}.
     */
    public EngineBackend(final RangeCache cache, final TieredBlockStore tiers)
    {
        this(cache, tiers, cache.origin(), "");
    }

    /**
     * The backend of one of several buckets over an engine whose origin is their {@link BucketOrigins}.
     *
     * @param cache  the engine.
     * @param tiers  the engine's tiered store, or {@code null}.
     * @param origin the bucket's own origin (listings, probes, multipart calls); not owned.
     * @param bucket the bucket, the first segment of its engine keys.
     * @return the backend.
     */
    public static EngineBackend ofBucket(
        final RangeCache cache, final TieredBlockStore tiers, final ObjectStore origin, final String bucket)
    {
        return new EngineBackend(cache, tiers, origin, BucketOrigins.keyOf(bucket, ""));
    }

    private EngineBackend(
        final RangeCache cache, final TieredBlockStore tiers, final ObjectStore origin, final String keyPrefix)
    {
        super(origin);
        this.cache = cache;
        this.tiers = tiers;
        this.keyPrefix = keyPrefix;
        this.straight = new OriginBackend(origin);
    }

    @Override
    public BucketBackend straight()
    {
        return straight;
    }

    @Override
    public String cacheKey(final String key)
    {
        return keyPrefix.isEmpty() ? key : keyPrefix + key;
    }

    @Override
    public CompletableFuture<ObjectInfo> stat(final String key)
    {
        return cache.statAsync(cacheKey(key)).thenApply((info) -> info.withKey(key));
    }

    /**
     * A part of the version the cache holds; when the origin's answer is about another version (the object was
     * rewritten behind the cache), the engine forgets the key and the part of the new version is read.
     */
    @Override
    public CompletableFuture<ObjectPart> part(final String key, final int partNumber)
    {
        return stat(key).thenCompose((info) -> partOf(key, info, partNumber)).thenCompose((part) ->
        {
            if (null != part)
            {
                return CompletableFuture.completedFuture(part);
            }
            final String cacheKey = cacheKey(key);
            forgetOnSsd(cacheKey);
            cache.invalidate(cacheKey);
            return super.part(key, partNumber);
        });
    }

    /** Parts of a version never move: the origin's answer is kept, per key, tag and part (bounded). */
    @Override
    protected CompletableFuture<MultipartUploads.PartRange> partRange(
        final String key, final String etag, final int partNumber)
    {
        final PartKey partKey = new PartKey(key, etag, partNumber);
        final MultipartUploads.PartRange known = parts.getIfPresent(partKey);
        if (null != known)
        {
            return CompletableFuture.completedFuture(known);
        }
        return super.partRange(key, etag, partNumber).thenApply((range) ->
        {
            parts.put(new PartKey(key, range.etag(), partNumber), range);
            return range;
        });
    }

    @Override
    public CompletableFuture<ObjectInfo> put(final String key, final ByteBuffer bytes)
    {
        final String cacheKey = cacheKey(key);
        return written(key, cacheKey, () -> cache.put(cacheKey, bytes));
    }

    @Override
    public CompletableFuture<ObjectInfo> put(
        final String key, final long length, final ObjectMetadata metadata, final Flow.Publisher<ByteBuffer> body)
    {
        final MultipartUploads uploads = multipart();
        final String cacheKey = cacheKey(key);
        return written(key, cacheKey, () -> invalidatedAround(cacheKey, () ->
            uploads.putObject(key, length, metadata, body)));
    }

    @Override
    public CompletableFuture<ObjectInfo> completeMultipartUpload(
        final String key, final String uploadId, final List<MultipartUploads.Part> parts)
    {
        final MultipartUploads uploads = multipart();
        final String cacheKey = cacheKey(key);
        return written(key, cacheKey, () -> invalidatedAround(cacheKey, () ->
            uploads.completeMultipartUpload(key, uploadId, parts)));
    }

    /** A write that reaches the origin past the engine: the engine forgets the key before it and after it. */
    private CompletableFuture<?> invalidatedAround(
        final String cacheKey, final Supplier<CompletableFuture<?>> write)
    {
        cache.invalidate(cacheKey);
        return write.get().whenComplete((v, error) -> cache.invalidate(cacheKey));
    }

    /**
     * A write through to the origin: the old version's SSD blocks are dropped before (so no reader meanwhile takes
     * them for current) and after (so none stored meanwhile stays), then the new version is stated and warmed.
     */
    private CompletableFuture<ObjectInfo> written(
        final String key, final String cacheKey, final Supplier<CompletableFuture<?>> write)
    {
        forgetOnSsd(cacheKey);
        return write.get().thenCompose((v) ->
        {
            forgetOnSsd(cacheKey);
            return cache.statAsync(cacheKey);
        }).thenApply((info) ->
        {
            if (info.size() > 0)
            {
                cache.prefetch(cacheKey, List.of(new ByteRange(0, info.size()))).whenComplete((done, error) ->
                {
                    if (null != error)
                    {
                        LOG.debug("warming {} after a pass-through write failed: {}", cacheKey, error.toString());
                    }
                });
            }
            return info.withKey(key);
        });
    }

    @Override
    public CompletableFuture<Void> delete(final String key)
    {
        final String cacheKey = cacheKey(key);
        forgetOnSsd(cacheKey);
        return cache.delete(cacheKey).thenRun(() -> forgetOnSsd(cacheKey));
    }

    private record PartKey(String key, String etag, int partNumber)
    {
    }

    private void forgetOnSsd(final String cacheKey)
    {
        if (null != tiers)
        {
            tiers.ssd().removeObject(new ObjectName(cache.namespace(), cacheKey));
        }
    }
}
