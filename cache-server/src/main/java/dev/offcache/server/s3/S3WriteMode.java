package dev.offcache.server.s3;

/** What the S3 endpoint does with writes ({@code --s3-api-writes}). */
public enum S3WriteMode
{
    /** Refuse every write with {@code AccessDenied}, as a read-only S3 endpoint does (the default). */
    REFUSE,
    /**
     * Pass {@code PutObject}, {@code DeleteObject} and, to an S3 origin, the multipart calls through to the origin;
     * the cache forgets the key and a put or a completed upload warms the SSD tier with the new version. Copies and
     * bucket writes stay {@code NotImplemented}.
     */
    PASS_THROUGH
}
