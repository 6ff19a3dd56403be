package dev.offcache.origin.s3;

import java.net.URI;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Flow;
import java.util.Optional;
import java.util.function.LongConsumer;

import org.reactivestreams.FlowAdapters;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.async.AsyncRequestBody;
import software.amazon.awssdk.core.async.AsyncResponseTransformer;
import software.amazon.awssdk.core.async.SdkPublisher;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.http.async.SdkAsyncHttpClient;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.S3AsyncClientBuilder;
import software.amazon.awssdk.services.s3.model.CommonPrefix;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.EncodingType;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;

import dev.offcache.range.origin.ContentRangeHeader;
import dev.offcache.range.origin.ListPage;
import dev.offcache.range.origin.MultipartUploads;
import dev.offcache.range.origin.ObjectInfo;
import dev.offcache.range.origin.ObjectKeys;
import dev.offcache.range.origin.ObjectMetadata;
import dev.offcache.range.origin.ObjectNotFoundException;
import dev.offcache.range.origin.OriginException;
import dev.offcache.range.origin.PreconditionFailedException;
import dev.offcache.range.origin.RangedGetOrigin;

/**
 * An origin over an S3 bucket through the AWS SDK v2 async client (Netty): ranged GETs stream straight into the
 * caller's buffer, HEAD gives sizes and ETags (the versions of conditional reads).
 *
 * <p>Memory: response chunks are copied into the caller's buffer as they arrive; nothing is buffered whole. The
 * origin owns the client and closes it.
 */
public final class S3Origin extends RangedGetOrigin implements MultipartUploads
{
    /** S3's content type of an object written without one. */
    private static final String DEFAULT_CONTENT_TYPE = "binary/octet-stream";
    private static final String PROBE = "HEAD bucket";
    private final S3AsyncClient client;
    private final String bucket;
    private final String namespace;

    /**
     * Creates an instance.
     *
     * @param client   the client; the origin closes it.
     * @param bucket   the bucket.
     * @param endpoint the endpoint's name, for the namespace (two buckets or endpoints never share cache keys).
     */
    public S3Origin(final S3AsyncClient client, final String bucket, final String endpoint)
    {
        if (bucket == null || bucket.isEmpty())
        {
            throw new IllegalArgumentException("bucket must not be empty");
        }
        this.client = client;
        this.bucket = bucket;
        this.namespace = "s3://" + endpoint + "/" + bucket;
    }

    /**
     * An origin with its own client for an S3-compatible endpoint (path-style addressing; checksums only where the
     * protocol requires them, which S3-compatible servers such as S3Proxy need).
     *
     * @param endpoint  the endpoint, for example {@code http://127.0.0.1:9000}.
     * @param region    the signing region.
     * @param accessKey the access key, or null to use the SDK's default credential chain (environment, system
     *                  properties, web identity, profile, container or instance role).
     * @param secretKey the secret key, or null with {@code accessKey}.
     * @param bucket    the bucket.
     * @return the origin.
     */
    public static S3Origin create(
        final URI endpoint, final String region, final String accessKey, final String secretKey, final String bucket)
    {
        final S3AsyncClient client = clientBuilder(endpoint, region, accessKey, secretKey)
            .httpClientBuilder(NettyNioAsyncHttpClient.builder().maxConcurrency(64))
            .build();
        return new S3Origin(client, bucket, endpoint.getAuthority() + endpoint.getPath());
    }

    /**
     * An origin for one of several buckets of an endpoint that share one HTTP client (connection pool and event
     * loop): the client is the caller's, who closes it after every origin over it.
     *
     * @param endpoint   the endpoint.
     * @param region     the signing region.
     * @param accessKey  the access key, or null for the SDK's default credential chain.
     * @param secretKey  the secret key, or null with {@code accessKey}.
     * @param bucket     the bucket.
     * @param httpClient the shared HTTP client ({@link #newHttpClient()}); not closed by the origin.
     * @return the origin.
     */
    public static S3Origin create(
        final URI endpoint, final String region, final String accessKey, final String secretKey, final String bucket,
        final SdkAsyncHttpClient httpClient)
    {
        final S3AsyncClient client = clientBuilder(endpoint, region, accessKey, secretKey)
            .httpClient(httpClient)
            .build();
        return new S3Origin(client, bucket, endpoint.getAuthority() + endpoint.getPath());
    }

    /**
     * The HTTP client {@link #create(URI, String, String, String, String)} gives each origin, for several origins to
     * share.
     *
     * @return a new client; the caller closes it.
     */
    public static SdkAsyncHttpClient newHttpClient()
    {
        return NettyNioAsyncHttpClient.builder().maxConcurrency(64).build();
    }

    /**
     * A client builder for an S3-compatible endpoint with the settings {@link #create} uses, for callers that
     * bring their own HTTP client (shared between origins, say).
     *
     * @param endpoint  the endpoint.
     * @param region    the signing region.
     * @param accessKey the access key, or null for the SDK's default credential chain.
     * @param secretKey the secret key, or null with {@code accessKey}.
     * @return the builder.
     */
    public static S3AsyncClientBuilder clientBuilder(
        final URI endpoint, final String region, final String accessKey, final String secretKey)
    {
        return S3AsyncClient.builder()
            .endpointOverride(endpoint)
            .region(Region.of(region))
            .credentialsProvider(null == accessKey && null == secretKey ?
                DefaultCredentialsProvider.builder().build() :
                StaticCredentialsProvider.create(AwsBasicCredentials.create(accessKey, secretKey)))
            .forcePathStyle(true)
            .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
            .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED);
    }

    @Override
    public String namespace()
    {
        return namespace;
    }

    @Override
    public CompletableFuture<Long> size(final String key)
    {
        ObjectKeys.validate(key);
        return client.headObject((b) -> b.bucket(bucket).key(key))
            .handle((response, error) ->
            {
                if (error != null)
                {
                    throw translate(error, key, null, "HEAD");
                }
                return response.contentLength();
            });
    }

    @Override
    public CompletableFuture<ObjectInfo> stat(final String key)
    {
        ObjectKeys.validate(key);
        return client.headObject((b) -> b.bucket(bucket).key(key))
            .handle((response, error) ->
            {
                if (error != null)
                {
                    throw translate(error, key, null, "HEAD");
                }
                return new ObjectInfo(key, response.contentLength(), millisOf(response.lastModified()),
                    response.eTag(), ObjectMetadata.of(response.sdkHttpResponse().headers()));
            });
    }

    @Override
    public CompletableFuture<String> version(final String key)
    {
        ObjectKeys.validate(key);
        return client.headObject((b) -> b.bucket(bucket).key(key))
            .handle((response, error) ->
            {
                if (error != null)
                {
                    throw translate(error, key, null, "HEAD");
                }
                return response.eTag();
            });
    }

    @Override
    public CompletableFuture<Void> put(final String key, final ByteBuffer source)
    {
        ObjectKeys.validate(key);
        return client.putObject((b) -> b.bucket(bucket).key(key).contentLength((long) source.remaining()),
                AsyncRequestBody.fromByteBuffer(source.duplicate()))
            .handle((response, error) ->
            {
                if (error != null)
                {
                    throw translate(error, key, null, "PUT");
                }
                return null;
            });
    }

    @Override
    public CompletableFuture<Void> delete(final String key)
    {
        ObjectKeys.validate(key);
        return client.deleteObject((b) -> b.bucket(bucket).key(key))
            .handle((response, error) ->
            {
                if (error != null)
                {
                    throw translate(error, key, null, "DELETE");
                }
                return null;
            });
    }

    @Override
    public CompletableFuture<List<String>> list(final String prefix)
    {
        final List<String> keys = Collections.synchronizedList(new ArrayList<>());
        return client.listObjectsV2Paginator((b) -> b.bucket(bucket).prefix(prefix))
            .contents()
            .subscribe((S3Object object) -> keys.add(object.key()))
            .handle((v, error) ->
            {
                if (error != null)
                {
                    throw translate(error, prefix, null, "LIST");
                }
                final List<String> sorted = new ArrayList<>(keys);
                Collections.sort(sorted);
                return sorted;
            });
    }

    /** One ListObjectsV2 call: the bucket's own paging, its continuation tokens passed through unchanged. */
    @Override
    public CompletableFuture<ListPage> listPage(final ListPage.Request request)
    {
        return client.listObjectsV2((b) -> b.bucket(bucket)
                .prefix(request.prefix().isEmpty() ? null : request.prefix())
                .delimiter(request.delimiter())
                .continuationToken(request.continuationToken())
                .startAfter(null == request.continuationToken() ? request.startAfter() : null)
                .maxKeys(request.maxKeys())
                .fetchOwner(true)
                // keys as URL-encoded text (the SDK decodes them): a key with a control character is not XML 1.0
                .encodingType(EncodingType.URL))
            .handle((response, error) ->
            {
                if (error != null)
                {
                    if (statusOf(error) == 400 && null != request.continuationToken())
                    {
                        throw new IllegalArgumentException("the continuation token is not valid");
                    }
                    throw translate(error, request.prefix(), null, "LIST");
                }
                final List<ObjectInfo> objects = new ArrayList<>(response.contents().size());
                for (final S3Object object : response.contents())
                {
                    objects.add(new ObjectInfo(object.key(), object.size(), millisOf(object.lastModified()),
                        object.eTag(), listed(object)));
                }
                final List<String> prefixes = new ArrayList<>(response.commonPrefixes().size());
                for (final CommonPrefix prefix : response.commonPrefixes())
                {
                    prefixes.add(prefix.prefix());
                }
                return new ListPage(objects, prefixes,
                    Boolean.TRUE.equals(response.isTruncated()) ? response.nextContinuationToken() : null);
            });
    }

    @Override
    public CompletableFuture<Void> probe()
    {
        return client.headBucket((b) -> b.bucket(bucket))
            .handle((response, error) ->
            {
                if (error != null)
                {
                    throw translate(error, "", null, PROBE);
                }
                return null;
            });
    }

    @Override
    public CompletableFuture<PartRange> partRange(final String key, final int partNumber)
    {
        ObjectKeys.validate(key);
        return client.headObject((b) -> b.bucket(bucket).key(key).partNumber(partNumber))
            .handle((response, error) ->
            {
                if (error != null)
                {
                    if (statusOf(error) == 416)
                    {
                        throw new RefusedException("InvalidPartNumber", 416, "part " + partNumber + " of '" + key +
                            "' in " + namespace + " is not satisfiable");
                    }
                    throw translate(error, key, null, "HEAD part");
                }
                final String range = response.sdkHttpResponse().firstMatchingHeader("Content-Range").orElse(null);
                final long start = rangeStart(range);
                if (start < 0)
                {
                    // the whole object: an S3-compatible server that ignores partNumber (S3Proxy)
                    return new PartRange(0, response.contentLength(), 0, response.eTag());
                }
                return new PartRange(start, response.contentLength(),
                    null == response.partsCount() ? 1 : response.partsCount(), response.eTag());
            });
    }

    @Override
    public CompletableFuture<String> createMultipartUpload(final String key, final ObjectMetadata metadata)
    {
        ObjectKeys.validate(key);
        return client.createMultipartUpload((b) -> b.bucket(bucket).key(key)
                .contentType(contentTypeOf(metadata))
                .overrideConfiguration((o) -> storedHeaders(metadata).forEach(o::putHeader)))
            .handle((response, error) ->
            {
                if (error != null)
                {
                    throw translateMultipart(error, key, "CreateMultipartUpload");
                }
                return response.uploadId();
            });
    }

    @Override
    public CompletableFuture<String> uploadPart(
        final String key, final String uploadId, final int partNumber, final ByteBuffer bytes)
    {
        ObjectKeys.validate(key);
        return client.uploadPart((b) -> b.bucket(bucket).key(key).uploadId(uploadId).partNumber(partNumber)
                .contentLength((long) bytes.remaining()), AsyncRequestBody.fromByteBuffer(bytes.duplicate()))
            .handle((response, error) ->
            {
                if (error != null)
                {
                    throw translateMultipart(error, key, "UploadPart");
                }
                return response.eTag();
            });
    }

    @Override
    public CompletableFuture<String> uploadPart(
        final String key, final String uploadId, final int partNumber, final long length,
        final Flow.Publisher<ByteBuffer> body)
    {
        ObjectKeys.validate(key);
        return client.uploadPart((b) -> b.bucket(bucket).key(key).uploadId(uploadId).partNumber(partNumber)
                .contentLength(length), streamed(length, DEFAULT_CONTENT_TYPE, body))
            .handle((response, error) ->
            {
                if (error != null)
                {
                    throw translateMultipart(error, key, "UploadPart");
                }
                return response.eTag();
            });
    }

    @Override
    public CompletableFuture<Void> putObject(
        final String key, final long length, final ObjectMetadata metadata, final Flow.Publisher<ByteBuffer> body)
    {
        ObjectKeys.validate(key);
        final String contentType = contentTypeOf(metadata);
        final String contentEncoding = metadata.get("content-encoding");
        return client.putObject((b) -> b.bucket(bucket).key(key).contentLength(length).contentType(contentType)
                .contentEncoding(contentEncoding)
                .overrideConfiguration((o) -> storedHeaders(metadata).forEach(o::putHeader)),
                streamed(length, contentType, body))
            .handle((response, error) ->
            {
                if (error != null)
                {
                    throw translateMultipart(error, key, "PutObject");
                }
                return null;
            });
    }

    /** What a listing says of an object beside its size, time and tag: its storage class and owner. */
    private static ObjectMetadata listed(final S3Object object)
    {
        final Map<String, String> fields = new TreeMap<>();
        if (null != object.storageClassAsString())
        {
            fields.put("x-amz-storage-class", object.storageClassAsString());
        }
        if (null != object.owner() && null != object.owner().id())
        {
            fields.put(ObjectMetadata.OWNER_ID, object.owner().id());
            if (null != object.owner().displayName())
            {
                fields.put(ObjectMetadata.OWNER_DISPLAY_NAME, object.owner().displayName());
            }
        }
        return ObjectMetadata.ofFields(fields);
    }

    /** S3's content type of an object written without one (the SDK would send its own default otherwise). */
    private static String contentTypeOf(final ObjectMetadata metadata)
    {
        final String contentType = metadata.get("content-type");
        return null == contentType ? DEFAULT_CONTENT_TYPE : contentType;
    }

    /**
     * The stored headers of a write other than those the SDK sets itself from the request (the content type and
     * encoding, which its chunked encoding and signing depend on), sent as they came: user metadata, cache control,
     * expiry, storage class, server-side encryption...
     */
    private static Map<String, List<String>> storedHeaders(final ObjectMetadata metadata)
    {
        final Map<String, List<String>> headers = new TreeMap<>();
        metadata.forEach((name, value) ->
        {
            if (!"content-type".equals(name) && !"content-encoding".equals(name))
            {
                headers.put(name, List.of(value));
            }
        });
        return headers;
    }

    /** A request body of known length over a stream, so the SDK sends it as it comes instead of buffering it. */
    private static AsyncRequestBody streamed(
        final long length, final String contentType, final Flow.Publisher<ByteBuffer> body)
    {
        final org.reactivestreams.Publisher<ByteBuffer> adapted = FlowAdapters.toPublisher(body);
        return new AsyncRequestBody()
        {
            @Override
            public String contentType()
            {
                return contentType;
            }

            @Override
            public Optional<Long> contentLength()
            {
                return Optional.of(length);
            }

            @Override
            public void subscribe(final Subscriber<? super ByteBuffer> subscriber)
            {
                adapted.subscribe(subscriber);
            }
        };
    }

    @Override
    public CompletableFuture<PartsPage> listParts(
        final String key, final String uploadId, final int partNumberMarker, final int maxParts)
    {
        ObjectKeys.validate(key);
        return client.listParts((b) -> b.bucket(bucket).key(key).uploadId(uploadId).maxParts(maxParts)
                .partNumberMarker(partNumberMarker > 0 ? partNumberMarker : null))
            .handle((response, error) ->
            {
                if (error != null)
                {
                    throw translateMultipart(error, key, "ListParts");
                }
                final List<MultipartUploads.Part> parts = new ArrayList<>(response.parts().size());
                for (final software.amazon.awssdk.services.s3.model.Part part : response.parts())
                {
                    parts.add(new MultipartUploads.Part(part.partNumber(), part.eTag(),
                        null == part.size() ? -1 : part.size(), millisOf(part.lastModified())));
                }
                final boolean truncated = Boolean.TRUE.equals(response.isTruncated());
                final Integer next = response.nextPartNumberMarker();
                return new PartsPage(parts, truncated, truncated && null != next ? next : 0);
            });
    }

    @Override
    public CompletableFuture<String> completeMultipartUpload(
        final String key, final String uploadId, final List<MultipartUploads.Part> parts)
    {
        ObjectKeys.validate(key);
        final List<CompletedPart> completed = new ArrayList<>(parts.size());
        for (final MultipartUploads.Part part : parts)
        {
            completed.add(CompletedPart.builder().partNumber(part.partNumber()).eTag(part.etag()).build());
        }
        return client.completeMultipartUpload((b) -> b.bucket(bucket).key(key).uploadId(uploadId)
                .multipartUpload((m) -> m.parts(completed)))
            .handle((response, error) ->
            {
                if (error != null)
                {
                    throw translateMultipart(error, key, "CompleteMultipartUpload");
                }
                return response.eTag();
            });
    }

    @Override
    public CompletableFuture<Void> abortMultipartUpload(final String key, final String uploadId)
    {
        ObjectKeys.validate(key);
        return client.abortMultipartUpload((b) -> b.bucket(bucket).key(key).uploadId(uploadId))
            .handle((response, error) ->
            {
                if (error != null)
                {
                    throw translateMultipart(error, key, "AbortMultipartUpload");
                }
                return null;
            });
    }

    @Override
    public void close()
    {
        client.close();
    }

    /**
     * A refusal of a write (a 4xx, or 501 for a header the bucket does not implement) keeps the bucket's own code
     * (NoSuchUpload, InvalidPart, NotImplemented...); the rest as ever.
     */
    private RuntimeException translateMultipart(final Throwable error, final String key, final String op)
    {
        Throwable cause = error;
        while (cause instanceof CompletionException && cause.getCause() != null)
        {
            cause = cause.getCause();
        }
        if (cause instanceof S3Exception s3 && (s3.statusCode() >= 400 && s3.statusCode() < 500 ||
            s3.statusCode() == 501) &&
            null != s3.awsErrorDetails() && null != s3.awsErrorDetails().errorCode())
        {
            return new RefusedException(s3.awsErrorDetails().errorCode(), s3.statusCode(),
                op + " of '" + key + "' in " + namespace + ": " + s3.awsErrorDetails().errorMessage());
        }
        return translate(error, key, null, op);
    }

    /** The first byte of a {@code Content-Range: bytes S-E/T}, or -1 when there is none. */
    private static long rangeStart(final String contentRange)
    {
        if (null == contentRange || !contentRange.regionMatches(true, 0, "bytes ", 0, 6))
        {
            return -1;
        }
        final int dash = contentRange.indexOf('-', 6);
        try
        {
            return dash < 0 ? -1 : Long.parseLong(contentRange.substring(6, dash).trim());
        }
        catch (final NumberFormatException ex)
        {
            return -1;
        }
    }

    private static long millisOf(final Instant time)
    {
        return null == time ? ObjectInfo.UNKNOWN_TIME : Math.max(0, time.toEpochMilli());
    }

    /**
     * One GET; the size from the answer's {@code Content-Range}. A range that starts past the end is S3's
     * {@code InvalidRange} (416): 0 bytes, and no size (the caller asks with a HEAD).
     */
    @Override
    protected CompletableFuture<Integer> get(
        final String key, final long offset, final ByteBuffer destination, final String ifMatch,
        final LongConsumer objectSize)
    {
        ObjectKeys.validate(key);
        if (offset < 0)
        {
            throw new IllegalArgumentException("negative offset " + offset + " for '" + key + "'");
        }
        final int length = destination.remaining();
        if (length == 0)
        {
            return CompletableFuture.completedFuture(0);
        }
        final GetObjectRequest request = GetObjectRequest.builder()
            .bucket(bucket)
            .key(key)
            .range("bytes=" + offset + "-" + (offset + length - 1))
            .ifMatch(ifMatch)
            .build();
        return client.getObject(request, new IntoBuffer(destination, objectSize))
            .handle((bytes, error) ->
            {
                if (error != null)
                {
                    if (statusOf(error) == 416)
                    {
                        return 0;
                    }
                    throw translate(error, key, ifMatch, "GET");
                }
                return bytes;
            });
    }

    private RuntimeException translate(final Throwable error, final String key, final String ifMatch, final String op)
    {
        final Throwable cause = error instanceof CompletionException && error.getCause() != null ?
            error.getCause() : error;
        final int status = statusOf(cause);
        if (status == 404 && !PROBE.equals(op) && cause instanceof S3Exception s3 && null != s3.awsErrorDetails() &&
            "NoSuchBucket".equals(s3.awsErrorDetails().errorCode()))
        {
            // not a missing object: the bucket is gone, which S3 clients are told as such (a probe stays "not
            // found", as its callers expect)
            return new RefusedException("NoSuchBucket", 404, op + " of '" + key + "': " + namespace +
                " does not exist");
        }
        if (status == 404)
        {
            return new ObjectNotFoundException(namespace, key);
        }
        if (status == 412 && ifMatch != null)
        {
            return new PreconditionFailedException(key, ifMatch);
        }
        if (cause instanceof OriginException)
        {
            return (OriginException) cause;
        }
        return new OriginException(op + " of '" + key + "' in " + namespace + " failed" +
            (status > 0 ? " (HTTP " + status + ")" : ""), cause);
    }

    private static int statusOf(final Throwable error)
    {
        Throwable cause = error;
        while (cause instanceof CompletionException && cause.getCause() != null)
        {
            cause = cause.getCause();
        }
        return cause instanceof S3Exception ? ((S3Exception) cause).statusCode() : -1;
    }

    /**
     * Streams a GET's body into the caller's buffer, chunk by chunk, asking for one chunk at a time.
     */
    private static final class IntoBuffer implements AsyncResponseTransformer<GetObjectResponse, Integer>
    {
        private final ByteBuffer destination;
        private final LongConsumer objectSize;
        private volatile CompletableFuture<Integer> result;

        IntoBuffer(final ByteBuffer destination, final LongConsumer objectSize)
        {
            this.destination = destination;
            this.objectSize = objectSize;
        }

        @Override
        public CompletableFuture<Integer> prepare()
        {
            // Called again on each retry: start from the caller's position afresh.
            result = new CompletableFuture<>();
            return result;
        }

        @Override
        public void onResponse(final GetObjectResponse response)
        {
            if (null != objectSize)
            {
                final long size = ContentRangeHeader.total(response.contentRange());
                if (size >= 0)
                {
                    objectSize.accept(size);
                }
            }
        }

        @Override
        public void onStream(final SdkPublisher<ByteBuffer> publisher)
        {
            final CompletableFuture<Integer> done = result;
            final ByteBuffer target = destination.duplicate();
            final int start = target.position();
            publisher.subscribe(new Subscriber<ByteBuffer>()
            {
                private Subscription subscription;

                @Override
                public void onSubscribe(final Subscription s)
                {
                    subscription = s;
                    s.request(1);
                }

                @Override
                public void onNext(final ByteBuffer chunk)
                {
                    if (chunk.remaining() > target.remaining())
                    {
                        subscription.cancel();
                        done.completeExceptionally(new OriginException("origin sent more bytes than the range asked"));
                        return;
                    }
                    target.put(chunk);
                    subscription.request(1);
                }

                @Override
                public void onError(final Throwable error)
                {
                    done.completeExceptionally(error);
                }

                @Override
                public void onComplete()
                {
                    done.complete(target.position() - start);
                }
            });
        }

        @Override
        public void exceptionOccurred(final Throwable error)
        {
            final CompletableFuture<Integer> done = result;
            if (done != null)
            {
                done.completeExceptionally(error);
            }
        }
    }
}
