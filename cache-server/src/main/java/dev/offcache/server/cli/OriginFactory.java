package dev.offcache.server.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.offcache.origin.s3.S3Origin;
import dev.offcache.range.origin.FileSystemOrigin;
import dev.offcache.range.origin.HttpOrigin;
import dev.offcache.range.origin.ObjectStore;
import dev.offcache.server.s3.BucketOrigins;
import software.amazon.awssdk.http.async.SdkAsyncHttpClient;

/**
 * The origin {@code offcache-server}'s flags choose: {@code --http-origin}'s HTTP server; the buckets of
 * {@code --s3-bucket} and {@code --bucket-dirs} (one bucket's own origin, or a {@link BucketOrigins} over one origin
 * each); {@code --origin-dir}; or, with none of them, the embedded sample directory. The flags have been checked
 * ({@link FlagChecks}) before it is used; the caller owns (closes) the origin it makes.
 */
final class OriginFactory
{
    private final OffcacheServerCommand options;
    private final Path dir;

    /**
     * The factory for checked flags.
     *
     * @param options the parsed, checked flags.
     */
    OriginFactory(final OffcacheServerCommand options)
    {
        this.options = options;
        this.dir = options.isEmbedded() ? Path.of(System.getProperty("java.io.tmpdir"), "offcache-origin") :
            options.originDir;
    }

    /**
     * Creates the embedded sample directory (when no origin is given), and refuses an origin or bucket directory
     * that is not a directory; before anything else is made.
     *
     * @throws IOException when the sample directory cannot be made.
     */
    void prepareDirectories() throws IOException
    {
        if (options.isEmbedded())
        {
            SampleObjects.createIfEmpty(dir);
        }
        else if (null != options.originDir && !Files.isDirectory(dir))
        {
            throw options.invalid("--origin-dir", "is not a directory: " + dir);
        }
        for (final Map.Entry<String, Path> bucket : options.bucketDirectories().entrySet())
        {
            if (!Files.isDirectory(bucket.getValue()))
            {
                throw options.invalid("--bucket-dirs", "bucket " + bucket.getKey() + ": is not a directory: " +
                    bucket.getValue());
            }
        }
    }

    /**
     * Makes the origin.
     *
     * @return the origin; the caller closes it.
     */
    ObjectStore create()
    {
        if (null != options.httpOrigin)
        {
            return new HttpOrigin(options.httpOriginUri(), Duration.ofMillis(options.originTimeoutMs));
        }
        if (null != options.s3Bucket || null != options.bucketDirs)
        {
            return bucketOrigin();
        }
        return new FileSystemOrigin(dir, options.fetchThreads);
    }

    /**
     * The origin of the buckets of --s3-bucket and --bucket-dirs: the one bucket's own origin, or for several a
     * {@link BucketOrigins} over one origin each (the S3 ones sharing one HTTP client).
     */
    private ObjectStore bucketOrigin()
    {
        final List<String> s3Names = options.s3Buckets();
        final Map<String, Path> dirs = options.bucketDirectories();
        if (s3Names.size() + dirs.size() == 1)
        {
            return s3Names.isEmpty() ? new FileSystemOrigin(dirs.values().iterator().next(), options.fetchThreads) :
                S3Origin.create(options.s3EndpointUri(), options.s3Region, options.s3AccessKey, options.s3SecretKey,
                    s3Names.get(0));
        }
        final Map<String, ObjectStore> origins = new LinkedHashMap<>();
        final SdkAsyncHttpClient shared = s3Names.isEmpty() ? null : S3Origin.newHttpClient();
        try
        {
            for (final String bucket : s3Names)
            {
                origins.put(bucket, S3Origin.create(options.s3EndpointUri(), options.s3Region, options.s3AccessKey,
                    options.s3SecretKey, bucket, shared));
            }
            for (final Map.Entry<String, Path> bucket : dirs.entrySet())
            {
                origins.put(bucket.getKey(), new FileSystemOrigin(bucket.getValue(), options.fetchThreads));
            }
            return new BucketOrigins(origins, shared);
        }
        catch (final RuntimeException ex)
        {
            for (final ObjectStore origin : origins.values())
            {
                origin.close();
            }
            if (null != shared)
            {
                shared.close();
            }
            throw ex;
        }
    }
}
