package dev.offcache.server.s3;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;

import dev.offcache.range.origin.ListPage;
import dev.offcache.range.origin.MultipartUploads;
import dev.offcache.range.origin.ObjectInfo;
import dev.offcache.range.origin.ObjectMetadata;
import dev.offcache.range.origin.ObjectStore;

/**
 * A bucket backend straight over an origin, nothing cached: listings, probes and writes as every backend does them,
 * and metadata from an origin HEAD per call; multipart uploads where the origin takes them ({@link MultipartUploads}:
 * an S3 bucket), {@code NotImplemented} elsewhere. The cache's backend extends it and takes metadata and warming from
 * the engine instead. Thread-safe; does not own the origin.
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
    public String cacheKey(final String key)
    {
        return key;
    }

    @Override
    public CompletableFuture<ObjectInfo> stat(final String key)
    {
        return origin.stat(key);
    }

    @Override
    public CompletableFuture<Integer> read(
        final String key, final long offset, final ByteBuffer destination, final String etag)
    {
        return null == etag ? origin.read(key, offset, destination) :
            origin.readIfMatch(key, offset, destination, etag);
    }

    @Override
    public CompletableFuture<ObjectPart> part(final String key, final int partNumber)
    {
        return stat(key).thenCompose((info) -> partOf(key, info, partNumber).thenApply((part) ->
        {
            if (null == part)
            {
                throw new S3Exception(S3ErrorCode.INTERNAL_ERROR, "the object changed while its part was read");
            }
            return part;
        }));
    }

    /**
     * A part of a known version: the whole object as part 1 of an object not uploaded in parts (or whose origin
     * knows no parts), else where the origin says the part lies ({@link #partRange}), or the whole object as the
     * origin answers it when the origin does not serve parts ({@link ObjectPart#WHOLE}, never other bytes than the
     * origin's).
     *
     * @param key        a validated key.
     * @param info       the version.
     * @param partNumber 1 to 10 000.
     * @return the part, or {@code null} when the origin's answer is about another version (changed meanwhile).
     */
    protected final CompletableFuture<ObjectPart> partOf(final String key, final ObjectInfo info, final int partNumber)
    {
        final int count = origin instanceof MultipartUploads ? ObjectPart.countInTag(info.etag()) : 0;
        if (partNumber > Math.max(1, count))
        {
            throw new S3Exception(S3ErrorCode.INVALID_PART_NUMBER)
                .with("PartNumberRequested", Integer.toString(partNumber))
                .with("ActualPartCount", Integer.toString(Math.max(1, count)));
        }
        if (count == 0)
        {
            return CompletableFuture.completedFuture(new ObjectPart(info, 0, info.size(), 0));
        }
        return partRange(key, info.etag(), partNumber).thenApply((range) ->
        {
            if (!ObjectHeaders.etagOf(info).equals(ObjectHeaders.etagOf(new ObjectInfo(key, 0, 0, range.etag()))))
            {
                return null;
            }
            if (range.partsCount() > 0)
            {
                return new ObjectPart(info, range.start(), range.length(), range.partsCount());
            }
            if (partNumber > 1)
            {
                // the origin ignores part numbers (S3Proxy 2.6 answers the whole object): S3 would answer part N's
                // bytes, which cannot be known here; the whole object again would corrupt a client that fetches
                // parts 1..N and joins them
                throw new S3Exception(S3ErrorCode.NOT_IMPLEMENTED, "the origin of this bucket does not serve parts " +
                    "of multipart objects: read part " + partNumber + " by range");
            }
            // part 1 as the origin answers it: the whole object, 200, no part count (a client that reads parts
            // takes it as an object of one part, as the AWS SDK's multipart download does)
            return new ObjectPart(info, range.start(), range.length(), ObjectPart.WHOLE);
        });
    }

    /**
     * Where a part lies, from the origin.
     *
     * @param key        a validated key.
     * @param etag       the tag of the version the caller knows (a key for backends that remember answers).
     * @param partNumber 1 to 10 000.
     * @return the origin's answer (about the version the origin has now).
     */
    protected CompletableFuture<MultipartUploads.PartRange> partRange(
        final String key, final String etag, final int partNumber)
    {
        return multipart().partRange(key, partNumber);
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
    public boolean readsAnyKey()
    {
        return origin instanceof MultipartUploads;
    }

    @Override
    public boolean streamsWrites()
    {
        return origin instanceof MultipartUploads;
    }

    @Override
    public CompletableFuture<ObjectInfo> put(
        final String key, final long length, final ObjectMetadata metadata, final Flow.Publisher<ByteBuffer> body)
    {
        return multipart().putObject(key, length, metadata, body).thenCompose((v) -> origin.stat(key));
    }

    @Override
    public CompletableFuture<String> uploadPart(
        final String key, final String uploadId, final int partNumber, final long length,
        final Flow.Publisher<ByteBuffer> body)
    {
        return multipart().uploadPart(key, uploadId, partNumber, length, body);
    }

    @Override
    public CompletableFuture<Void> delete(final String key)
    {
        return origin.delete(key);
    }

    /**
     * The origin's multipart uploads.
     *
     * @return the origin as {@link MultipartUploads}.
     * @throws S3Exception ({@code NotImplemented}) when the origin takes none.
     */
    protected final MultipartUploads multipart()
    {
        if (origin instanceof MultipartUploads uploads)
        {
            return uploads;
        }
        throw new S3Exception(S3ErrorCode.NOT_IMPLEMENTED, "multipart uploads pass through only to an S3 origin; " +
            "this bucket's origin (" + origin.namespace() + ") takes whole objects (PutObject)");
    }

    @Override
    public CompletableFuture<String> createMultipartUpload(final String key, final ObjectMetadata metadata)
    {
        return multipart().createMultipartUpload(key, metadata);
    }

    @Override
    public CompletableFuture<String> uploadPart(
        final String key, final String uploadId, final int partNumber, final ByteBuffer bytes)
    {
        return multipart().uploadPart(key, uploadId, partNumber, bytes);
    }

    @Override
    public CompletableFuture<MultipartUploads.PartsPage> listParts(
        final String key, final String uploadId, final int partNumberMarker, final int maxParts)
    {
        return multipart().listParts(key, uploadId, partNumberMarker, maxParts);
    }

    @Override
    public CompletableFuture<ObjectInfo> completeMultipartUpload(
        final String key, final String uploadId, final List<MultipartUploads.Part> parts)
    {
        return multipart().completeMultipartUpload(key, uploadId, parts).thenCompose((etag) -> origin.stat(key));
    }

    @Override
    public CompletableFuture<Void> abortMultipartUpload(final String key, final String uploadId)
    {
        return multipart().abortMultipartUpload(key, uploadId);
    }
}
