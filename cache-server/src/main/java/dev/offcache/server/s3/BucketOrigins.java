package dev.offcache.server.s3;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongConsumer;

import dev.offcache.range.origin.BlockProgress;
import dev.offcache.range.origin.ObjectInfo;
import dev.offcache.range.origin.ObjectNotFoundException;
import dev.offcache.range.origin.ObjectStore;
import dev.offcache.range.store.FetchClass;

/**
 * The engine's origin when the server serves several buckets: one key space {@code BUCKET/KEY} over one origin per
 * bucket (an S3 bucket, a local directory). The bucket is part of every cache key, so the same key in two buckets is
 * two objects and never shares a block. The namespace is a digest of the whole mapping (each name with its origin's
 * namespace), so blocks an SSD tier kept under another mapping are never taken for this one's. A key without a
 * served bucket is a missing object. Thread-safe; owns the origins and closes them, then whatever they share.
 */
public final class BucketOrigins implements ObjectStore
{
    private final Map<String, ObjectStore> byName;
    private final AutoCloseable shared;
    private final String namespace;
    private final boolean readsReportSize;
    private final boolean answersCarrySize;
    private final boolean readsBlocks;

    /**
     * The origins of the served buckets.
     *
     * @param origins bucket name to its origin (owned from now on); at least two.
     * @param shared  closed after the origins (an HTTP client they share), or {@code null}.
     */
    public BucketOrigins(final Map<String, ObjectStore> origins, final AutoCloseable shared)
    {
        if (origins.size() < 2)
        {
            throw new IllegalArgumentException("a routed origin serves at least two buckets, not " + origins.size());
        }
        this.byName = new TreeMap<>(origins);
        this.shared = shared;
        final StringBuilder mapping = new StringBuilder();
        boolean sizes = true;
        boolean answerSizes = true;
        boolean blocks = true;
        for (final Map.Entry<String, ObjectStore> entry : byName.entrySet())
        {
            if (!S3Buckets.isValidName(entry.getKey()))
            {
                throw new IllegalArgumentException("not a valid S3 bucket name: '" + entry.getKey() + "'");
            }
            mapping.append(entry.getKey()).append('=').append(entry.getValue().namespace()).append('\n');
            sizes &= entry.getValue().readsReportSize();
            answerSizes &= entry.getValue().readAnswersCarrySize();
            blocks &= entry.getValue().readsBlocks();
        }
        this.readsReportSize = sizes;
        this.answersCarrySize = answerSizes;
        this.readsBlocks = blocks;
        try
        {
            final byte[] digest = MessageDigest.getInstance("SHA-256")
                .digest(mapping.toString().getBytes(StandardCharsets.UTF_8));
            this.namespace = "buckets:" + HexFormat.of().formatHex(digest, 0, 12);
        }
        catch (final NoSuchAlgorithmException ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    /**
     * The engine key of an object in a bucket.
     *
     * @param bucket the bucket.
     * @param key    the key inside it.
     * @return {@code BUCKET/KEY}.
     */
    public static String keyOf(final String bucket, final String key)
    {
        return bucket + "/" + key;
    }

    /**
     * The origin of one bucket.
     *
     * @param bucket a served bucket.
     * @return its origin (owned here).
     */
    public ObjectStore origin(final String bucket)
    {
        final ObjectStore origin = byName.get(bucket);
        if (null == origin)
        {
            throw new IllegalArgumentException("bucket '" + bucket + "' is not served");
        }
        return origin;
    }

    /**
     * The served bucket names, sorted.
     *
     * @return the names.
     */
    public List<String> names()
    {
        return new ArrayList<>(byName.keySet());
    }

    @Override
    public String namespace()
    {
        return namespace;
    }

    /** The bucket's origin and the key inside it, or {@code null} when the key names no served bucket. */
    private Routed route(final String key)
    {
        final int slash = null == key ? -1 : key.indexOf('/');
        if (slash <= 0 || slash == key.length() - 1)
        {
            return null;
        }
        final ObjectStore origin = byName.get(key.substring(0, slash));
        return null == origin ? null : new Routed(origin, key.substring(slash + 1));
    }

    private record Routed(ObjectStore origin, String key)
    {
    }

    /** A key of no served bucket: its message names the served ones (the namespace is an opaque digest). */
    private <T> CompletableFuture<T> missing(final String key)
    {
        return CompletableFuture.failedFuture(new ObjectNotFoundException("the served buckets (" +
            String.join(", ", byName.keySet()) + "; keys are BUCKET/KEY)", key));
    }

    @Override
    public CompletableFuture<Long> size(final String key)
    {
        final Routed routed = route(key);
        return null == routed ? missing(key) : routed.origin().size(routed.key());
    }

    @Override
    public CompletableFuture<ObjectInfo> stat(final String key)
    {
        final Routed routed = route(key);
        return null == routed ? missing(key) : routed.origin().stat(routed.key()).thenApply((info) ->
            info.withKey(key));
    }

    @Override
    public boolean readsReportSize()
    {
        return readsReportSize;
    }

    @Override
    public CompletableFuture<Integer> read(
        final String key, final long offset, final ByteBuffer destination, final FetchClass fetchClass,
        final LongConsumer objectSize)
    {
        final Routed routed = route(key);
        return null == routed ? missing(key) :
            routed.origin().read(routed.key(), offset, destination, fetchClass, objectSize);
    }

    /**
     * Whether every bucket's reads tell the object's size, as each bucket's own origin says: then a new object's
     * first GET costs no HEAD before it, as with one bucket.
     */
    @Override
    public boolean readAnswersCarrySize()
    {
        return answersCarrySize;
    }

    @Override
    public boolean readsBlocks()
    {
        return readsBlocks;
    }

    @Override
    public CompletableFuture<Integer> readBlocks(
        final String key, final long offset, final ByteBuffer[] destinations, final FetchClass fetchClass,
        final LongConsumer objectSize, final BlockProgress progress)
    {
        final Routed routed = route(key);
        return null == routed ? missing(key) :
            routed.origin().readBlocks(routed.key(), offset, destinations, fetchClass, objectSize, progress);
    }

    @Override
    public CompletableFuture<Integer> readIfMatch(
        final String key, final long offset, final ByteBuffer destination, final String ifMatch)
    {
        final Routed routed = route(key);
        return null == routed ? missing(key) : routed.origin().readIfMatch(routed.key(), offset, destination, ifMatch);
    }

    @Override
    public CompletableFuture<String> version(final String key)
    {
        final Routed routed = route(key);
        return null == routed ? missing(key) : routed.origin().version(routed.key());
    }

    @Override
    public CompletableFuture<Void> put(final String key, final ByteBuffer source)
    {
        final Routed routed = route(key);
        return null == routed ? CompletableFuture.failedFuture(new IllegalArgumentException(
            "'" + key + "' names no served bucket (keys are BUCKET/KEY)")) : routed.origin().put(routed.key(), source);
    }

    @Override
    public CompletableFuture<Void> delete(final String key)
    {
        final Routed routed = route(key);
        return null == routed ? CompletableFuture.completedFuture(null) : routed.origin().delete(routed.key());
    }

    /** Keys under a prefix; a prefix that stops inside a bucket name lists every bucket it starts. */
    @Override
    public CompletableFuture<List<String>> list(final String prefix)
    {
        final int slash = prefix.indexOf('/');
        final List<CompletableFuture<List<String>>> lists = new ArrayList<>();
        final List<String> buckets = new ArrayList<>();
        for (final Map.Entry<String, ObjectStore> entry : byName.entrySet())
        {
            final String bucket = entry.getKey();
            if (slash < 0 ? bucket.startsWith(prefix) : bucket.equals(prefix.substring(0, slash)))
            {
                buckets.add(bucket);
                lists.add(entry.getValue().list(slash < 0 ? "" : prefix.substring(slash + 1)));
            }
        }
        return CompletableFuture.allOf(lists.toArray(new CompletableFuture<?>[0])).thenApply((v) ->
        {
            final List<String> keys = new ArrayList<>();
            for (int i = 0; i < lists.size(); i++)
            {
                for (final String key : lists.get(i).join())
                {
                    keys.add(keyOf(buckets.get(i), key));
                }
            }
            keys.sort(null);
            return keys;
        });
    }

    /** Every bucket's origin answers. */
    @Override
    public CompletableFuture<Void> probe()
    {
        final List<CompletableFuture<Void>> probes = new ArrayList<>();
        for (final ObjectStore origin : byName.values())
        {
            probes.add(origin.probe());
        }
        return CompletableFuture.allOf(probes.toArray(new CompletableFuture<?>[0]));
    }

    @Override
    public void close()
    {
        RuntimeException failure = null;
        for (final ObjectStore origin : byName.values())
        {
            try
            {
                origin.close();
            }
            catch (final RuntimeException ex)
            {
                failure = null == failure ? ex : failure;
            }
        }
        if (null != shared)
        {
            try
            {
                shared.close();
            }
            catch (final Exception ex)
            {
                failure = null == failure ? new IllegalStateException("closing the shared client failed", ex) :
                    failure;
            }
        }
        if (null != failure)
        {
            throw failure;
        }
    }

    @Override
    public String toString()
    {
        return namespace + byName.keySet();
    }
}
