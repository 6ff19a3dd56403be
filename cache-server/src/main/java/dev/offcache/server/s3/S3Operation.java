package dev.offcache.server.s3;

/**
 * The S3 operations the endpoint tells apart. Reads of objects go through the cache; bucket reads (listings,
 * {@code HeadBucket}) pass through to the origin; writes are refused unless pass-through writes are configured; the
 * rest is {@code NotImplemented}. Each has the S3 API name used as the {@code operation} label of the metrics.
 */
public enum S3Operation
{
    /** {@code GET /}: the buckets this endpoint serves. */
    LIST_BUCKETS("ListBuckets", Kind.BUCKET_READ),
    /** {@code HEAD /bucket}. */
    HEAD_BUCKET("HeadBucket", Kind.BUCKET_READ),
    /** {@code GET /bucket?location}. */
    GET_BUCKET_LOCATION("GetBucketLocation", Kind.BUCKET_READ),
    /** {@code GET /bucket} (version 1 listing). */
    LIST_OBJECTS("ListObjects", Kind.BUCKET_READ),
    /** {@code GET /bucket?list-type=2}. */
    LIST_OBJECTS_V2("ListObjectsV2", Kind.BUCKET_READ),
    /** {@code GET /bucket/key}: served by the cache. */
    GET_OBJECT("GetObject", Kind.OBJECT_READ),
    /** {@code HEAD /bucket/key}: served by the cache. */
    HEAD_OBJECT("HeadObject", Kind.OBJECT_READ),
    /** {@code PUT /bucket/key}. */
    PUT_OBJECT("PutObject", Kind.WRITE),
    /** {@code DELETE /bucket/key}. */
    DELETE_OBJECT("DeleteObject", Kind.WRITE),
    /** {@code POST /bucket?delete}. */
    DELETE_OBJECTS("DeleteObjects", Kind.WRITE),
    /** {@code PUT /bucket/key} with {@code x-amz-copy-source}. */
    COPY_OBJECT("CopyObject", Kind.WRITE),
    /** {@code POST /bucket/key?uploads}. */
    CREATE_MULTIPART_UPLOAD("CreateMultipartUpload", Kind.WRITE),
    /** {@code PUT /bucket/key?partNumber&uploadId}. */
    UPLOAD_PART("UploadPart", Kind.WRITE),
    /** {@code POST /bucket/key?uploadId}. */
    COMPLETE_MULTIPART_UPLOAD("CompleteMultipartUpload", Kind.WRITE),
    /** {@code DELETE /bucket/key?uploadId}. */
    ABORT_MULTIPART_UPLOAD("AbortMultipartUpload", Kind.WRITE),
    /** {@code GET /bucket/key?uploadId}: part of the multipart write protocol, so refused with the writes. */
    LIST_PARTS("ListParts", Kind.WRITE),
    /** Any other write: bucket creation or deletion, ACLs, tags, policies, configurations. */
    OTHER_WRITE("OtherWrite", Kind.WRITE),
    /** A read of a sub-resource the endpoint does not serve (ACLs, tags, versions, uploads...). */
    UNSUPPORTED("Unsupported", Kind.UNSUPPORTED);

    /** What the endpoint does with an operation. */
    public enum Kind
    {
        /** Served through the cache engine. */
        OBJECT_READ,
        /** Passed through to the origin, never cached. */
        BUCKET_READ,
        /** Refused read-only, or passed through when configured. */
        WRITE,
        /** Answered {@code NotImplemented}. */
        UNSUPPORTED
    }

    private final String apiName;
    private final Kind kind;

    S3Operation(final String apiName, final Kind kind)
    {
        this.apiName = apiName;
        this.kind = kind;
    }

    /**
     * The S3 API name ({@code GetObject}...), the {@code operation} label of the metrics.
     *
     * @return the name.
     */
    public String apiName()
    {
        return apiName;
    }

    /**
     * What the endpoint does with it.
     *
     * @return the kind.
     */
    public Kind kind()
    {
        return kind;
    }
}
