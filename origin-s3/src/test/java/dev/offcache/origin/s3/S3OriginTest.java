package dev.offcache.origin.s3;

import java.net.URI;
import java.nio.ByteBuffer;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.http.async.SdkAsyncHttpClient;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;

import dev.offcache.range.origin.ObjectNotFoundException;
import dev.offcache.range.origin.ObjectStore;
import dev.offcache.range.origin.ObjectStoreContract;
import dev.offcache.testkit.s3.S3ProxyServer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

/**
 * The S3 origin (AWS SDK v2 async client) against S3Proxy with a transient blob store, started in-process on
 * 127.0.0.1.
 */
class S3OriginTest extends ObjectStoreContract
{
    private static final String BUCKET = "lake";

    private static S3ProxyServer proxy;
    private static SdkAsyncHttpClient http;

    @Override
    protected void startServer() throws Exception
    {
        // One S3Proxy for the class: starting jclouds takes seconds on a busy machine.
        if (proxy == null)
        {
            proxy = S3ProxyServer.start(BUCKET);
        }
    }

    @Override
    protected ObjectStore newOrigin()
    {
        // One Netty client for the class: closing one waits out its event loop's quiet period.
        if (http == null)
        {
            http = NettyNioAsyncHttpClient.builder().build();
        }
        final URI endpoint = proxy.endpoint();
        return new S3Origin(S3Origin.clientBuilder(endpoint, S3ProxyServer.REGION, S3ProxyServer.ACCESS_KEY,
            S3ProxyServer.SECRET_KEY).httpClient(http).build(), BUCKET, endpoint.getAuthority());
    }

    @Test
    void probeOfAMissingBucketIsNotFound() throws Exception
    {
        try (S3Origin missing = new S3Origin(S3Origin.clientBuilder(proxy.endpoint(), S3ProxyServer.REGION,
            S3ProxyServer.ACCESS_KEY, S3ProxyServer.SECRET_KEY).httpClient(http).build(), "no-such-bucket",
            proxy.endpoint().getAuthority()))
        {
            assertInstanceOf(ObjectNotFoundException.class, failure(missing.probe()));
        }
    }

    @Test
    void createBuildsAWorkingClientOfItsOwn() throws Exception
    {
        try (S3Origin own = S3Origin.create(proxy.endpoint(), S3ProxyServer.REGION, S3ProxyServer.ACCESS_KEY,
            S3ProxyServer.SECRET_KEY, BUCKET))
        {
            get(own.put("own", ByteBuffer.wrap(new byte[]{1, 2, 3})));
            assertEquals(3L, get(own.size("own")));
            proxy.counters().reset();
            final ByteBuffer two = ByteBuffer.allocateDirect(2);
            assertEquals(2, get(own.read("own", 1, two)));
            assertEquals(1, proxy.counters().gets(), proxy.counters().toString());
            assertEquals(2, proxy.counters().bytes(), proxy.counters().toString());
        }
    }

    @Override
    protected void stopServer()
    {
    }

    @AfterAll
    static void stopProxy()
    {
        if (proxy != null)
        {
            proxy.close();
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
        assertEquals("s3://" + proxy.endpoint().getAuthority() + "/" + BUCKET, origin.namespace());
    }
}
