package dev.offcache.server.s3;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The buckets the S3 endpoint serves, each mapped to the origin behind it (through its {@link BucketBackend}): an S3
 * origin's bucket under its own name, a local directory or HTTP origin under the name the operator gives it.
 * Immutable and thread-safe.
 */
public final class S3Buckets
{
    private final Map<String, Bucket> byName;

    /**
     * A served bucket.
     *
     * @param name    the bucket name clients use.
     * @param region  the region it reports ({@code GetBucketLocation}, {@code x-amz-bucket-region}).
     * @param backend the storage behind it (not owned here).
     */
    public record Bucket(String name, String region, BucketBackend backend)
    {
        /**
         * Checks the name.
         *
         * @param name    the bucket name.
         * @param region  the region.
         * @param backend the backend.
         */
        public Bucket
        {
            if (!isValidName(name))
            {
                throw new IllegalArgumentException("not a valid S3 bucket name: '" + name + "'");
            }
            if (null == backend || null == region || region.isEmpty())
            {
                throw new IllegalArgumentException("bucket '" + name + "' needs a backend and a region");
            }
        }
    }

    /**
     * The served buckets.
     *
     * @param buckets at least one, names distinct.
     */
    public S3Buckets(final List<Bucket> buckets)
    {
        final Map<String, Bucket> map = new LinkedHashMap<>();
        for (final Bucket bucket : buckets)
        {
            if (null != map.put(bucket.name(), bucket))
            {
                throw new IllegalArgumentException("bucket '" + bucket.name() + "' is mapped twice");
            }
        }
        if (map.isEmpty())
        {
            throw new IllegalArgumentException("the S3 endpoint needs at least one bucket");
        }
        this.byName = map;
    }

    /**
     * S3's naming rules: 3 to 63 lower-case letters, digits, dots and hyphens, starting and ending with a letter or
     * digit, no two dots in a row, not an IP address.
     *
     * @param name the name.
     * @return whether S3 would accept it.
     */
    public static boolean isValidName(final String name)
    {
        return null != name && name.matches("[a-z0-9][a-z0-9.\\-]{1,61}[a-z0-9]") && !name.contains("..") &&
            !name.matches("\\d+\\.\\d+\\.\\d+\\.\\d+");
    }

    /**
     * The bucket of a name.
     *
     * @param name the name from the request.
     * @return the bucket.
     * @throws S3Exception ({@code NoSuchBucket}) when it is not served here.
     */
    public Bucket get(final String name)
    {
        final Bucket bucket = byName.get(name);
        if (null == bucket)
        {
            throw new S3Exception(S3ErrorCode.NO_SUCH_BUCKET).with("BucketName", name);
        }
        return bucket;
    }

    /**
     * The bucket names, in the order configured.
     *
     * @return the names.
     */
    public List<String> names()
    {
        return new ArrayList<>(byName.keySet());
    }
}
