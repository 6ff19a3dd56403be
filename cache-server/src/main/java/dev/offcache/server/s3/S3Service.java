package dev.offcache.server.s3;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import dev.offcache.range.engine.ByteRange;
import dev.offcache.range.origin.ListPage;
import dev.offcache.range.origin.MultipartUploads;
import dev.offcache.range.origin.ObjectInfo;
import dev.offcache.range.origin.ObjectKeys;
import dev.offcache.range.origin.ObjectMetadata;
import dev.offcache.range.origin.ObjectNotFoundException;
import dev.offcache.range.origin.OriginException;
import dev.offcache.server.http.ObjectKeyPolicy;
import dev.offcache.server.http.RangeHeader;
import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides the S3 endpoint's answer to an authenticated request, short of streaming object bytes: which bucket
 * (or {@code NoSuchBucket}), which key (validated as for {@code /obj}: traversal, prefixes, length), the object's
 * metadata from the cache, the conditional headers, the range ({@code InvalidRange} past the end, a malformed
 * {@code Range} ignored as S3 ignores it), listings and {@code HeadBucket} from the origin, and writes (refused, or
 * passed through). Every failure becomes S3's error document. Thread-safe; the transport owns sockets and streams.
 */
public final class S3Service
{
    private static final Logger LOG = LoggerFactory.getLogger(S3Service.class);

    private final S3Buckets buckets;
    private final ObjectKeyPolicy keys;
    private final S3WriteMode writes;
    private final Clock clock;
    private final long startedMillis;

    /**
     * A service.
     *
     * @param buckets the served buckets.
     * @param keys    the key policy shared with {@code /obj}.
     * @param writes  what happens to writes.
     * @param clock   the clock (conditions, {@code ListBuckets}).
     */
    public S3Service(final S3Buckets buckets, final ObjectKeyPolicy keys, final S3WriteMode writes, final Clock clock)
    {
        this.buckets = buckets;
        this.keys = keys;
        this.writes = writes;
        this.clock = clock;
        this.startedMillis = clock.millis();
    }

    /**
     * The answer to a request.
     *
     * @param request the parsed request.
     * @param auth    its verified signature ({@link Authentication#DISABLED} without authentication).
     * @param headers the request headers.
     * @param body      the request body, may be empty; read, not released.
     * @param requestId the request's id (in error documents).
     * @return the answer; never fails (failures are error answers).
     */
    public CompletableFuture<S3Answer> answer(
        final S3Request request,
        final Authentication auth,
        final HttpHeaders headers,
        final ByteBuf body,
        final String requestId)
    {
        return answer(request, auth, headers, body, null, requestId);
    }

    /**
     * The answer to a request whose body is streamed ({@code PutObject}, {@code UploadPart} to a bucket that
     * {@linkplain BucketBackend#streamsWrites streams writes}): the write takes the body from {@code upload} as it
     * arrives; a body that fails its checks is answered with the check's error.
     *
     * @param request   the parsed request.
     * @param auth      its verified signature.
     * @param headers   the request headers.
     * @param body      the request body held whole, may be empty; read, not released.
     * @param upload    the streamed body, or {@code null} when the body is held whole.
     * @param requestId the request's id (in error documents).
     * @return the answer; never fails (failures are error answers).
     */
    public CompletableFuture<S3Answer> answer(
        final S3Request request,
        final Authentication auth,
        final HttpHeaders headers,
        final ByteBuf body,
        final UploadStream upload,
        final String requestId)
    {
        CompletableFuture<S3Answer> answer;
        try
        {
            answer = dispatch(request, auth, headers, body, upload);
        }
        catch (final RuntimeException ex)
        {
            answer = CompletableFuture.failedFuture(ex);
        }
        return answer.exceptionally((error) -> error(request, null != upload && null != upload.failure() ?
            upload.failure() : translate(request, error), requestId));
    }

    /**
     * Whether a request's body is to be streamed to the origin rather than held whole: a pass-through
     * {@code PutObject} or {@code UploadPart} to a bucket whose origin takes streamed writes.
     *
     * @param request the parsed request.
     * @return true to stream it.
     */
    public boolean streams(final S3Request request)
    {
        if (writes != S3WriteMode.PASS_THROUGH || (request.operation() != S3Operation.PUT_OBJECT &&
            request.operation() != S3Operation.UPLOAD_PART))
        {
            return false;
        }
        try
        {
            return buckets.get(request.bucket()).backend().streamsWrites();
        }
        catch (final S3Exception ex)
        {
            return false;
        }
    }

    /**
     * The error answer of an exception.
     *
     * @param request the request (its path is the error's resource), or {@code null}.
     * @param error     the error.
     * @param requestId the request's id.
     * @return the answer.
     */
    public static S3Answer error(final S3Request request, final S3Exception error, final String requestId)
    {
        final HttpHeaders headers = new DefaultHttpHeaders().set(HttpHeaderNames.CONTENT_TYPE, "application/xml");
        if (error.code() == S3ErrorCode.INVALID_RANGE && null != error.detail("ActualObjectSize"))
        {
            headers.set(HttpHeaderNames.CONTENT_RANGE, "bytes */" + error.detail("ActualObjectSize"));
        }
        if (error.code() == S3ErrorCode.METHOD_NOT_ALLOWED)
        {
            headers.set(HttpHeaderNames.ALLOW, "GET, HEAD");
        }
        return new S3Answer.Complete(error.code().status(), headers,
            S3Xml.error(error, null == request ? null : request.rawPath(), requestId), error.code());
    }

    private CompletableFuture<S3Answer> dispatch(
        final S3Request request,
        final Authentication auth,
        final HttpHeaders headers,
        final ByteBuf body,
        final UploadStream upload)
    {
        final S3Operation operation = request.operation();
        if (operation.kind() == S3Operation.Kind.UNSUPPORTED)
        {
            throw new S3Exception(S3ErrorCode.NOT_IMPLEMENTED, "offcache serves GetObject, HeadObject, " +
                "ListObjects(V2), HeadBucket, GetBucketLocation and ListBuckets; this sub-resource is not served");
        }
        if (operation == S3Operation.LIST_BUCKETS)
        {
            return xml(S3Xml.listBuckets(buckets.names(), startedMillis));
        }
        final S3Buckets.Bucket bucket = buckets.get(request.bucket());
        switch (operation)
        {
            case HEAD_BUCKET:
                return bucket.backend().probe().handle((v, error) ->
                {
                    if (null != error && unwrap(error) instanceof ObjectNotFoundException)
                    {
                        throw new S3Exception(S3ErrorCode.NO_SUCH_BUCKET).with("BucketName", bucket.name());
                    }
                    if (null != error)
                    {
                        throw asCompletion(error);
                    }
                    final HttpHeaders out = new DefaultHttpHeaders().set("x-amz-bucket-region", bucket.region());
                    return (S3Answer) new S3Answer.Complete(200, out, "");
                });
            case GET_BUCKET_LOCATION:
                return xml(S3Xml.location(bucket.region()));
            case LIST_OBJECTS:
            case LIST_OBJECTS_V2:
                return list(bucket, ListObjectsQuery.parse(request.query()));
            case GET_OBJECT:
            case HEAD_OBJECT:
                return object(bucket, request, headers);
            default:
                return write(bucket, request, auth, headers, body, upload);
        }
    }

    private CompletableFuture<S3Answer> list(final S3Buckets.Bucket bucket, final ListObjectsQuery query)
    {
        if (!keys.mayHoldAllowedKeys(query.prefix()))
        {
            return xml(S3Xml.listObjects(bucket.name(), query, new ListPage(List.of(), List.of(), null)));
        }
        return bucket.backend().list(query.toPageRequest()).thenApply((page) ->
        {
            final List<ObjectInfo> objects = new ArrayList<>(page.objects().size());
            for (final ObjectInfo object : page.objects())
            {
                // every key the origin lists (a directory marker 'dir/', '//', '..' segments, control
                // characters...), even those not served by GetObject here: a listing is the origin's
                if (keys.underAllowedPrefix(object.key()))
                {
                    objects.add(object);
                }
            }
            final List<String> prefixes = new ArrayList<>(page.commonPrefixes().size());
            for (final String prefix : page.commonPrefixes())
            {
                if (keys.mayHoldAllowedKeys(prefix))
                {
                    prefixes.add(prefix);
                }
            }
            return complete(200, S3Xml.listObjects(bucket.name(), query,
                new ListPage(objects, prefixes, page.nextContinuationToken())));
        });
    }

    private CompletableFuture<S3Answer> object(
        final S3Buckets.Bucket bucket, final S3Request request, final HttpHeaders headers)
    {
        // a key the cache does not serve (a directory marker 'dir/', a '.' segment, a control character) is read
        // straight from the origin, as it is written: the answer is the origin's object, nothing cached
        final String key = writtenKey(request.key());
        final String problem = keys.problemWith(key);
        if (null != problem && !bucket.backend().readsAnyKey())
        {
            // a directory origin would read another file (a '.' segment normalised away) or a directory
            throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT, "offcache does not serve this key: " + problem)
                .with("ArgumentName", "key").with("ArgumentValue", key);
        }
        final BucketBackend backend = null == problem ? bucket.backend() : bucket.backend().straight();
        final String versionId = request.parameter("versionId");
        if (null != versionId && !"null".equals(versionId))
        {
            throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT, "Invalid version id specified")
                .with("ArgumentName", "versionId").with("ArgumentValue", versionId);
        }
        final String partNumber = request.parameter("partNumber");
        final String range = headers.get(HttpHeaderNames.RANGE);
        if (null != partNumber && null != range)
        {
            throw new S3Exception(S3ErrorCode.INVALID_REQUEST,
                "Cannot specify both Range header and partNumber query parameter");
        }
        ObjectHeaders.checkOverrides(request.query());
        final CompletableFuture<S3Answer> answer = null != partNumber ?
            backend.part(key, partNumber(partNumber)).thenApply((part) ->
                objectAnswer(bucket, backend, key, request, headers, part.version(), part)) :
            backend.stat(key).thenApply((info) -> objectAnswer(bucket, backend, key, request, headers, info, null));
        return request.operation() == S3Operation.HEAD_OBJECT ? answer : answer.exceptionallyCompose((error) ->
            unwrap(error) instanceof ObjectNotFoundException ? missingObjectOrBucket(bucket, error) :
                CompletableFuture.failedFuture(error));
    }

    /**
     * A GET of a missing object: {@code NoSuchBucket} when the origin's bucket is gone (a HEAD of an object cannot
     * tell, so the bucket is probed, once per miss), else the object's {@code NoSuchKey}. A HEAD answers 404 either
     * way, with no body, so it is not probed.
     */
    private static CompletableFuture<S3Answer> missingObjectOrBucket(
        final S3Buckets.Bucket bucket, final Throwable missing)
    {
        return bucket.backend().probe().handle((v, error) ->
        {
            if (null != error && (unwrap(error) instanceof ObjectNotFoundException ||
                unwrap(error) instanceof MultipartUploads.RefusedException refused &&
                "NoSuchBucket".equals(refused.code())))
            {
                throw new S3Exception(S3ErrorCode.NO_SUCH_BUCKET).with("BucketName", bucket.name());
            }
            throw asCompletion(missing);
        });
    }

    /** The answer to a GET or HEAD of a version, or of one of its parts. */
    private S3Answer objectAnswer(
        final S3Buckets.Bucket bucket, final BucketBackend backend, final String key, final S3Request request,
        final HttpHeaders headers, final ObjectInfo info, final ObjectPart part)
    {
        final String range = headers.get(HttpHeaderNames.RANGE);
        final String etag = ObjectHeaders.etagOf(info);
        final long lastModified = ObjectHeaders.lastModifiedOf(info);
        final Conditions.Result condition = Conditions.evaluate(headers, etag,
            info.hasLastModified() ? info.lastModifiedMillis() : -1, clock.millis());
        if (condition.outcome() == Conditions.Outcome.PRECONDITION_FAILED)
        {
            throw new S3Exception(S3ErrorCode.PRECONDITION_FAILED).with("Condition", condition.condition());
        }
        final HttpHeaders out = new DefaultHttpHeaders();
        if (condition.outcome() == Conditions.Outcome.NOT_MODIFIED)
        {
            out.set(HttpHeaderNames.ETAG, etag)
                .set(HttpHeaderNames.LAST_MODIFIED, AmzDates.formatHttpDate(lastModified));
            return new S3Answer.Complete(304, out, "");
        }
        ObjectHeaders.apply(out, info, request.query());
        final long size = info.size();
        long start = 0;
        long length = size;
        boolean partial = false;
        if (null != part && part.partsCount() != ObjectPart.WHOLE)
        {
            // a part is a range of the object (S3 answers 206 even for the one part of a whole object)
            start = part.start();
            length = part.length();
            partial = true;
            if (part.partsCount() > 0)
            {
                out.set("x-amz-mp-parts-count", part.partsCount());
            }
        }
        else if (null != range)
        {
            try
            {
                final ByteRange parsed = RangeHeader.parse(range, size);
                start = parsed.position();
                length = parsed.length();
                partial = true;
            }
            catch (final RangeHeader.RangeException ex)
            {
                if (ex.unsatisfiable())
                {
                    throw new S3Exception(S3ErrorCode.INVALID_RANGE).with("RangeRequested", range)
                        .with("ActualObjectSize", Long.toString(size));
                }
                // S3 serves the whole object for a Range it cannot parse (RFC 9110: ignore it)
            }
        }
        out.set(HttpHeaderNames.CONTENT_LENGTH, length);
        if (partial)
        {
            out.set(HttpHeaderNames.CONTENT_RANGE,
                "bytes " + start + "-" + (start + length - 1) + "/" + size);
            if (length == 0)
            {
                // only a whole empty object by partNumber gets here: S3 answers it like a plain GET
                out.remove(HttpHeaderNames.CONTENT_RANGE);
                partial = false;
            }
        }
        final int status = partial ? 206 : 200;
        if (backend != bucket.backend())
        {
            final String version = info.etag();
            return new S3Answer.OriginBody(status, out,
                (offset, destination) -> backend.read(key, offset, destination, version), start, length);
        }
        return new S3Answer.ObjectBody(status, out, bucket.backend().cacheKey(key), start, length);
    }

    private CompletableFuture<S3Answer> write(
        final S3Buckets.Bucket bucket,
        final S3Request request,
        final Authentication auth,
        final HttpHeaders headers,
        final ByteBuf body,
        final UploadStream upload)
    {
        if (writes == S3WriteMode.REFUSE)
        {
            throw new S3Exception(S3ErrorCode.ACCESS_DENIED, "offcache serves this endpoint read-only (" +
                request.operation().apiName() + " refused; --s3-api-writes pass-through writes through to the " +
                "origin)");
        }
        switch (request.operation())
        {
            case PUT_OBJECT:
            {
                final String key = writtenKey(request.key());
                final ObjectMetadata metadata = ObjectHeaders.written(headers);
                final CompletableFuture<ObjectInfo> put;
                if (null != upload)
                {
                    put = backendFor(bucket, key).put(key, upload.claim(auth, headers), metadata, upload);
                }
                else
                {
                    final byte[] bytes = bodyOf(auth, headers, body);
                    checkContentMd5(headers.get("Content-MD5"), bytes);
                    put = backendFor(bucket, key).put(key, ByteBuffer.wrap(bytes));
                }
                return lostAnswer(bucket, upload, put).thenApply((info) ->
                {
                    final HttpHeaders out =
                        new DefaultHttpHeaders().set(HttpHeaderNames.ETAG, ObjectHeaders.etagOf(info));
                    return (S3Answer) new S3Answer.Complete(200, out, "");
                });
            }
            case DELETE_OBJECT:
            {
                final String key = writtenKey(request.key());
                return backendFor(bucket, key).delete(key)
                    .thenApply((v) -> (S3Answer) new S3Answer.Complete(204, new DefaultHttpHeaders(), ""));
            }
            case CREATE_MULTIPART_UPLOAD:
            {
                final String key = writtenKey(request.key());
                return backendFor(bucket, key).createMultipartUpload(key, ObjectHeaders.written(headers))
                    .thenApply((uploadId) ->
                        complete(200, S3Xml.initiateMultipartUpload(bucket.name(), key, uploadId)));
            }
            case UPLOAD_PART:
            {
                final String key = writtenKey(request.key());
                final int partNumber = partNumber(request.parameter("partNumber"));
                final CompletableFuture<String> part;
                if (null != upload)
                {
                    part = backendFor(bucket, key).uploadPart(key, request.parameter("uploadId"), partNumber,
                        upload.claim(auth, headers), upload);
                }
                else
                {
                    final byte[] bytes = bodyOf(auth, headers, body);
                    checkContentMd5(headers.get("Content-MD5"), bytes);
                    part = backendFor(bucket, key).uploadPart(key, request.parameter("uploadId"), partNumber,
                        ByteBuffer.wrap(bytes));
                }
                return lostAnswer(bucket, upload, part).thenApply((etag) -> (S3Answer) new S3Answer.Complete(200,
                    new DefaultHttpHeaders().set(HttpHeaderNames.ETAG, etag), ""));
            }
            case LIST_PARTS:
            {
                final String key = writtenKey(request.key());
                final String uploadId = request.parameter("uploadId");
                final int marker = boundedNumber("part-number-marker", request.parameter("part-number-marker"), 0,
                    10_000, 0);
                final int maxParts = boundedNumber("max-parts", request.parameter("max-parts"), 1, 1000, 1000);
                return backendFor(bucket, key).listParts(key, uploadId, marker, maxParts).thenApply((page) ->
                    complete(200, S3Xml.listParts(bucket.name(), key, uploadId, marker, maxParts, page)));
            }
            case COMPLETE_MULTIPART_UPLOAD:
            {
                final String key = writtenKey(request.key());
                final List<MultipartUploads.Part> parts = S3Xml.completedParts(bodyOf(auth, headers, body));
                return backendFor(bucket, key).completeMultipartUpload(key, request.parameter("uploadId"), parts)
                    .thenApply((info) -> complete(200, S3Xml.completeMultipartUpload(
                        "/" + bucket.name() + "/" + AwsUriEncoding.encode(key, true), bucket.name(), key,
                        ObjectHeaders.etagOf(info))));
            }
            case ABORT_MULTIPART_UPLOAD:
            {
                final String key = writtenKey(request.key());
                return backendFor(bucket, key).abortMultipartUpload(key, request.parameter("uploadId"))
                    .thenApply((v) -> (S3Answer) new S3Answer.Complete(204, new DefaultHttpHeaders(), ""));
            }
            default:
                throw new S3Exception(S3ErrorCode.NOT_IMPLEMENTED, "offcache passes PutObject, DeleteObject and " +
                    "multipart uploads through to the origin; " + request.operation().apiName() + " is not served");
        }
    }

    /**
     * A streamed write whose origin connection failed without an answer (an origin that refuses a write without
     * reading its body and closes the connection can reset it before its client reads the refusal): when the
     * origin's bucket is gone, that was the refusal, and the client is told {@code NoSuchBucket}, as straight.
     */
    private static <T> CompletableFuture<T> lostAnswer(
        final S3Buckets.Bucket bucket, final UploadStream upload, final CompletableFuture<T> write)
    {
        if (null == upload)
        {
            return write;
        }
        return write.exceptionallyCompose((error) ->
        {
            final Throwable cause = unwrap(error);
            if (null != upload.failure() || !(cause instanceof OriginException) ||
                cause instanceof MultipartUploads.RefusedException)
            {
                return CompletableFuture.failedFuture(error);
            }
            return bucket.backend().probe().handle((v, probeError) ->
            {
                if (null != probeError && (unwrap(probeError) instanceof ObjectNotFoundException ||
                    unwrap(probeError) instanceof MultipartUploads.RefusedException refused &&
                    "NoSuchBucket".equals(refused.code())))
                {
                    throw new S3Exception(S3ErrorCode.NO_SUCH_BUCKET).with("BucketName", bucket.name());
                }
                throw asCompletion(error);
            });
        });
    }

    private static int partNumber(final String value)
    {
        final int number = boundedNumber("partNumber", value, 1, 10_000, -1);
        if (number < 1)
        {
            throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT, "Part number must be an integer between 1 and 10000, " +
                "inclusive").with("ArgumentName", "partNumber").with("ArgumentValue", value);
        }
        return number;
    }

    /** A numeric query parameter within bounds, or the default when absent; {@code InvalidArgument} otherwise. */
    private static int boundedNumber(
        final String name, final String value, final int min, final int max, final int absent)
    {
        if (null == value)
        {
            return absent;
        }
        try
        {
            final int number = Integer.parseInt(value);
            if (number >= min && number <= max)
            {
                return number;
            }
        }
        catch (final NumberFormatException ex)
        {
            // answered below
        }
        throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT, name + " must be an integer from " + min + " to " + max)
            .with("ArgumentName", name).with("ArgumentValue", value);
    }

    private static byte[] bodyOf(final Authentication auth, final HttpHeaders headers, final ByteBuf body)
    {
        if (AwsChunkedBody.isStreaming(auth.payloadHash()))
        {
            final String decoded = headers.get("x-amz-decoded-content-length");
            final long length;
            try
            {
                length = Long.parseLong(null == decoded ? "-1" : decoded);
            }
            catch (final NumberFormatException ex)
            {
                throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT, "x-amz-decoded-content-length is not a number");
            }
            return new AwsChunkedBody().decode(body, auth, length);
        }
        final byte[] bytes = new byte[body.readableBytes()];
        body.getBytes(body.readerIndex(), bytes);
        return bytes;
    }

    private static void checkContentMd5(final String contentMd5, final byte[] bytes)
    {
        if (null == contentMd5)
        {
            return;
        }
        final byte[] claimed = contentMd5(contentMd5);
        try
        {
            if (!MessageDigest.isEqual(claimed, MessageDigest.getInstance("MD5").digest(bytes)))
            {
                throw new S3Exception(S3ErrorCode.BAD_DIGEST);
            }
        }
        catch (final NoSuchAlgorithmException ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    /**
     * The MD5 a {@code Content-MD5} header names.
     *
     * @param header the header's value.
     * @return the 16 bytes.
     * @throws S3Exception ({@code InvalidDigest}) when it is not a Base64 MD5.
     */
    static byte[] contentMd5(final String header)
    {
        final byte[] claimed;
        try
        {
            claimed = Base64.getDecoder().decode(header.trim());
        }
        catch (final IllegalArgumentException ex)
        {
            throw new S3Exception(S3ErrorCode.INVALID_DIGEST);
        }
        if (claimed.length != 16)
        {
            throw new S3Exception(S3ErrorCode.INVALID_DIGEST);
        }
        return claimed;
    }

    /**
     * Validates the key of a write: as S3 (length, and the structure every origin needs) and the allowed prefixes,
     * but not the server's stricter rules for keys it serves (a trailing '/', a '.' segment, control characters):
     * a directory marker {@code dir/} is written, straight to the origin ({@link #backendFor}).
     */
    private String writtenKey(final String key)
    {
        if (null == key)
        {
            throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT, "an object key is required");
        }
        if (keys.tooLong(key))
        {
            throw new S3Exception(S3ErrorCode.KEY_TOO_LONG).with("Key", key);
        }
        if (!keys.underAllowedPrefix(key))
        {
            throw new S3Exception(S3ErrorCode.ACCESS_DENIED, "the key is not under an allowed prefix").with("Key", key);
        }
        final String problem = ObjectKeys.problemWith(key);
        if (null != problem)
        {
            throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT, "offcache does not write this key: " + problem)
                .with("ArgumentName", "key").with("ArgumentValue", key);
        }
        return key;
    }

    /** The bucket's backend for a key: the cache's for a key it serves, else straight to the origin. */
    private BucketBackend backendFor(final S3Buckets.Bucket bucket, final String key)
    {
        return null == keys.problemWith(key) ? bucket.backend() : bucket.backend().straight();
    }

    private static S3Exception translate(final S3Request request, final Throwable error)
    {
        final Throwable cause = unwrap(error);
        if (cause instanceof S3Exception s3)
        {
            return s3;
        }
        if (cause instanceof MultipartUploads.RefusedException refused)
        {
            // the origin's own answer to a multipart call, with its code where this endpoint knows it
            final S3ErrorCode code = S3ErrorCode.of(refused.code());
            if (code == S3ErrorCode.NO_SUCH_BUCKET)
            {
                return new S3Exception(code).with("BucketName", request.bucket());
            }
            return null != code ? new S3Exception(code) :
                new S3Exception(S3ErrorCode.INVALID_REQUEST, refused.code() + ": " + refused.getMessage());
        }
        if (cause instanceof ObjectNotFoundException)
        {
            return new S3Exception(S3ErrorCode.NO_SUCH_KEY).with("Key", request.key());
        }
        if (cause instanceof UnsupportedOperationException)
        {
            return new S3Exception(S3ErrorCode.NOT_IMPLEMENTED, "the origin of this bucket cannot do that: " +
                cause.getMessage());
        }
        if (cause instanceof IllegalArgumentException && request.operation().kind() == S3Operation.Kind.BUCKET_READ)
        {
            return new S3Exception(S3ErrorCode.INVALID_ARGUMENT, cause.getMessage());
        }
        LOG.warn("S3 {} of {} failed: {}", request.operation().apiName(), request.rawPath(), cause.toString());
        return new S3Exception(S3ErrorCode.INTERNAL_ERROR);
    }

    private static CompletableFuture<S3Answer> xml(final String document)
    {
        return CompletableFuture.completedFuture(complete(200, document));
    }

    private static S3Answer complete(final int status, final String document)
    {
        return new S3Answer.Complete(status,
            new DefaultHttpHeaders().set(HttpHeaderNames.CONTENT_TYPE, "application/xml"), document);
    }

    private static Throwable unwrap(final Throwable error)
    {
        Throwable cause = error;
        while (cause instanceof CompletionException && null != cause.getCause())
        {
            cause = cause.getCause();
        }
        return cause;
    }

    private static CompletionException asCompletion(final Throwable error)
    {
        return error instanceof CompletionException completion ? completion : new CompletionException(error);
    }
}
