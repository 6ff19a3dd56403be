package dev.offcache.testkit.s3;

import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;

import org.gaul.s3proxy.AuthenticationType;
import org.gaul.s3proxy.S3Proxy;
import org.jclouds.ContextBuilder;
import org.jclouds.blobstore.BlobStore;
import org.jclouds.blobstore.BlobStoreContext;

/**
 * S3Proxy started in-process on 127.0.0.1 (an ephemeral port) over jclouds' transient (in-memory) blob store, with
 * every request the proxy serves counted at the blob store ({@link OriginCounters}): what a test asserts about
 * "bytes read from the origin" is measured here, at the origin, not inside the client under test.
 *
 * <p>Owns the proxy and the blob store; {@link #close()} stops both. Starting takes a second or two (jclouds), so a
 * test class starts one and shares it.
 */
public final class S3ProxyServer implements AutoCloseable
{
    /** The access key the proxy accepts. */
    public static final String ACCESS_KEY = "offcache-access";
    /** The secret key the proxy accepts. */
    public static final String SECRET_KEY = "offcache-secret";
    /** The signing region clients should use. */
    public static final String REGION = "us-east-1";

    private final BlobStoreContext blobs;
    private final S3Proxy proxy;
    private final OriginCounters counters = new OriginCounters();

    private S3ProxyServer(final BlobStoreContext blobs, final S3Proxy proxy)
    {
        this.blobs = blobs;
        this.proxy = proxy;
    }

    /**
     * Starts a proxy with the given buckets.
     *
     * @param buckets buckets to create.
     * @return the running proxy.
     * @throws Exception when it does not start within 30 seconds.
     */
    public static S3ProxyServer start(final String... buckets) throws Exception
    {
        return startOn(0, buckets);
    }

    /**
     * Starts a proxy on a given port of 127.0.0.1 with the given buckets (the local S3 origin of {@code offcache-demo},
     * which prints its port for others to use).
     *
     * @param port    the port, or 0 for an ephemeral one.
     * @param buckets buckets to create.
     * @return the running proxy.
     * @throws Exception when it does not start within 30 seconds (or the port is taken).
     */
    public static S3ProxyServer startOn(final int port, final String... buckets) throws Exception
    {
        final BlobStoreContext blobs = ContextBuilder.newBuilder("transient")
            .credentials("identity", "credential")
            .overrides(new Properties())
            .build(BlobStoreContext.class);
        S3Proxy proxy = null;
        try
        {
            final S3ProxyServer[] self = new S3ProxyServer[1];
            final CountingBlobStore counting = new CountingBlobStore(blobs.getBlobStore(), () -> self[0].counters);
            proxy = S3Proxy.builder()
                .blobStore(counting)
                .endpoint(URI.create("http://127.0.0.1:" + port))
                .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, ACCESS_KEY, SECRET_KEY)
                .build();
            self[0] = new S3ProxyServer(blobs, proxy);
            for (final String bucket : buckets)
            {
                blobs.getBlobStore().createContainerInLocation(null, bucket);
            }
            proxy.start();
            final long deadline = System.nanoTime() + 30_000_000_000L;
            while (!"STARTED".equals(proxy.getState()))
            {
                if (System.nanoTime() > deadline)
                {
                    throw new IllegalStateException("S3Proxy did not start within 30 s: " + proxy.getState());
                }
                Thread.sleep(10);
            }
            return self[0];
        }
        catch (final Exception | Error ex)
        {
            if (proxy != null)
            {
                proxy.stop();
            }
            blobs.close();
            throw ex;
        }
    }

    /**
     * Creates a bucket.
     *
     * @param bucket its name.
     */
    public void createBucket(final String bucket)
    {
        blobs.getBlobStore().createContainerInLocation(null, bucket);
    }

    /**
     * Stores an object (straight into the blob store: not counted as origin traffic).
     *
     * @param bucket an existing bucket.
     * @param key    the object key.
     * @param bytes  its content.
     */
    public void put(final String bucket, final String key, final byte[] bytes)
    {
        final BlobStore store = blobs.getBlobStore();
        store.putBlob(bucket, store.blobBuilder(key).payload(bytes).contentLength(bytes.length).build());
    }

    /**
     * Returns the endpoint, {@code http://127.0.0.1:PORT}.
     *
     * @return the endpoint, {@code http://127.0.0.1:PORT}.
     */
    public URI endpoint()
    {
        return URI.create("http://127.0.0.1:" + proxy.getPort());
    }

    /**
     * Returns what the origin has served since the last {@link OriginCounters#reset()}.
     *
     * @return what the origin has served since the last {@link OriginCounters#reset()}.
     */
    public OriginCounters counters()
    {
        return counters;
    }

    /**
     * The Hadoop S3A settings that point {@code s3a://} at this proxy (path-style, no TLS, static keys). Writes
     * through S3A also need the AWS SDK system properties {@code aws.requestChecksumCalculation=WHEN_REQUIRED} and
     * {@code aws.responseChecksumValidation=WHEN_REQUIRED} (set in the module's Surefire configuration), because the
     * SDK's default trailing checksums are refused by S3Proxy.
     *
     * @return {@code fs.s3a.*} keys and values, in a stable order.
     */
    public Map<String, String> s3aSettings()
    {
        final Map<String, String> settings = new LinkedHashMap<>();
        settings.put("fs.s3a.endpoint", endpoint().toString());
        settings.put("fs.s3a.endpoint.region", REGION);
        settings.put("fs.s3a.path.style.access", "true");
        settings.put("fs.s3a.connection.ssl.enabled", "false");
        settings.put("fs.s3a.access.key", ACCESS_KEY);
        settings.put("fs.s3a.secret.key", SECRET_KEY);
        settings.put("fs.s3a.aws.credentials.provider", "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider");
        // Bulk deletes carry an x-amz-checksum-crc32 header the SDK always adds, which S3Proxy refuses (501).
        settings.put("fs.s3a.multiobjectdelete.enable", "false");
        // One attempt, short timeouts: a broken test fails in seconds, not after S3A's minutes of retries.
        settings.put("fs.s3a.attempts.maximum", "1");
        settings.put("fs.s3a.retry.limit", "1");
        settings.put("fs.s3a.connection.establish.timeout", "5s");
        settings.put("fs.s3a.connection.timeout", "30s");
        return settings;
    }

    @Override
    public void close()
    {
        try
        {
            proxy.stop();
        }
        catch (final Exception ex)
        {
            throw new IllegalStateException("stopping S3Proxy failed", ex);
        }
        finally
        {
            blobs.close();
        }
    }
}
