package dev.offcache.range.origin;

import java.net.URI;
import java.util.Properties;

import org.gaul.s3proxy.AuthenticationType;
import org.gaul.s3proxy.S3Proxy;
import org.jclouds.ContextBuilder;
import org.jclouds.blobstore.BlobStoreContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.http.async.SdkAsyncHttpClient;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The S3 origin (AWS SDK v2 async client) against S3Proxy with a transient blob store, started in-process on
 * 127.0.0.1.
 */
class S3OriginTest extends ObjectStoreContract
{
    private static final String ACCESS = "offcache-access";
    private static final String SECRET = "offcache-secret";
    private static final String BUCKET = "lake";

    private static BlobStoreContext blobs;
    private static S3Proxy proxy;
    private static SdkAsyncHttpClient http;

    @Override
    protected void startServer() throws Exception
    {
        // One S3Proxy for the class: starting jclouds takes seconds on a busy machine.
        if (proxy != null)
        {
            return;
        }
        blobs = ContextBuilder.newBuilder("transient")
            .credentials("identity", "credential")
            .overrides(new Properties())
            .build(BlobStoreContext.class);
        blobs.getBlobStore().createContainerInLocation(null, BUCKET);
        proxy = S3Proxy.builder()
            .blobStore(blobs.getBlobStore())
            .endpoint(URI.create("http://127.0.0.1:0"))
            .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, ACCESS, SECRET)
            .build();
        proxy.start();
        final long deadline = System.nanoTime() + 10_000_000_000L;
        while (!"STARTED".equals(proxy.getState()) && System.nanoTime() < deadline)
        {
            Thread.sleep(10);
        }
        assertEquals("STARTED", proxy.getState());
    }

    @Override
    protected ObjectStore newOrigin()
    {
        // One Netty client for the class: closing one waits out its event loop's quiet period.
        if (http == null)
        {
            http = NettyNioAsyncHttpClient.builder().build();
        }
        final URI endpoint = URI.create("http://127.0.0.1:" + proxy.getPort());
        return new S3Origin(S3Origin.clientBuilder(endpoint, "us-east-1", ACCESS, SECRET).httpClient(http).build(),
            BUCKET, endpoint.getAuthority());
    }

    @Test
    void createBuildsAWorkingClientOfItsOwn() throws Exception
    {
        try (S3Origin own = S3Origin.create(URI.create("http://127.0.0.1:" + proxy.getPort()), "us-east-1", ACCESS,
            SECRET, BUCKET))
        {
            get(own.put("own", java.nio.ByteBuffer.wrap(new byte[]{1, 2, 3})));
            assertEquals(3L, get(own.size("own")));
        }
    }

    @Override
    protected void stopServer()
    {
    }

    @AfterAll
    static void stopProxy() throws Exception
    {
        if (proxy != null)
        {
            proxy.stop();
            blobs.close();
            proxy = null;
        }
        if (http != null)
        {
            http.close();
            http = null;
        }
    }

    @Test
    void namespaceNamesEndpointAndBucket()
    {
        assertEquals("s3://127.0.0.1:" + proxy.getPort() + "/" + BUCKET, origin.namespace());
    }
}
