package dev.offcache.server.http;

import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;

import dev.offcache.core.config.ConcurrentConcludeException;
import dev.offcache.core.slab.BlockRef;
import dev.offcache.range.origin.FileSystemOrigin;
import dev.offcache.range.store.FetchClass;
import dev.offcache.server.s3.OriginBackend;
import dev.offcache.server.s3.S3Api;
import dev.offcache.server.s3.S3Buckets;
import dev.offcache.server.s3.S3Credentials;
import dev.offcache.server.tier.ObjectName;
import dev.offcache.server.tier.TieredBlockStore;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every context of the server configures one component: the HTTP server's, the tiered store's and the S3 API's
 * context given to a second launch, open or constructor (or concluded by hand first) is refused with
 * {@link ConcurrentConcludeException} before it binds, maps or makes anything, and the first one still serves.
 */
class ContextsConcludeOnceTest
{
    private static final int BLOCK = 64 * 1024;

    @TempDir
    Path tmp;

    @Test
    void theServersContextGivenToASecondLaunchIsRefusedAndTheFirstStillServes() throws Exception
    {
        final Path originDir = Files.createDirectories(tmp.resolve("origin"));
        final byte[] object = new byte[3 * BLOCK + 17];
        new Random(17).nextBytes(object);
        Files.write(originDir.resolve("obj.bin"), object);
        final AtomicReference<L2HttpServer.Context> launched = new AtomicReference<>();
        try (ServerHarness harness = new ServerHarness(BLOCK, originDir, tmp.resolve("ssd"), 4, 16L * BLOCK,
            TransportKind.AUTO, 0, UnaryOperator.identity(), UnaryOperator.identity(), (context) ->
            {
                launched.set(context);
                return context;
            }))
        {
            assertRefused("L2HttpServer.Context", () -> L2HttpServer.launch(launched.get()));
            final HttpResponse<byte[]> whole =
                harness.get(HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build(), "/obj/obj.bin", null);
            assertEquals(200, whole.statusCode());
            assertArrayEquals(object, whole.body());
        }
    }

    @Test
    void theStoresContextGivenToASecondOpenIsRefusedAndTheFirstStillHoldsItsBlocks()
    {
        final TieredBlockStore.Context context = storeContext("ssd");
        try (TieredBlockStore store = TieredBlockStore.open(context))
        {
            assertRefused("TieredBlockStore.Context", () -> TieredBlockStore.open(context));
            final byte[] block = new byte[BLOCK];
            new Random(3).nextBytes(block);
            assertTrue(store.put(5, new UnsafeBuffer(block), 0, BLOCK, FetchClass.DEMAND));
            final BlockRef ref = store.acquire(5);
            assertNotNull(ref);
            try
            {
                final byte[] read = new byte[BLOCK];
                ref.buffer().getBytes(0, read);
                assertArrayEquals(block, read);
            }
            finally
            {
                ref.release();
            }
        }
    }

    @Test
    void theS3ApisContextGivenToASecondApiIsRefusedAndTheFirstKeepsItsSettings()
    {
        try (FileSystemOrigin origin = new FileSystemOrigin(tmp, 1))
        {
            final S3Api.Context context = new S3Api.Context()
                .listen("127.0.0.1", 9123)
                .credentials(S3Credentials.parse("AKIAIOSFODNN7EXAMPLE:wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"))
                .buckets(new S3Buckets(List.of(new S3Buckets.Bucket("lake", "eu-west-3", new OriginBackend(origin)))))
                .keyPolicy(new ObjectKeyPolicy(64, List.of()));
            final S3Api api = new S3Api(context);
            assertRefused("S3Api.Context", () -> new S3Api(context));
            assertEquals("127.0.0.1", api.host());
            assertEquals(9123, api.port());
            assertNotNull(api.newVerifier(), "authentication on");
            assertNotNull(api.service());
        }
    }

    @Test
    void contextsConcludedByHandAreRefused()
    {
        final TieredBlockStore.Context store = storeContext("ssd-hand");
        store.conclude();
        assertRefused("TieredBlockStore.Context", () -> TieredBlockStore.open(store));
    }

    private TieredBlockStore.Context storeContext(final String ssd)
    {
        return new TieredBlockStore.Context()
            .blockSize(BLOCK)
            .ramCapacityBytes(4L * BLOCK)
            .ssdCapacityBytes(64L * BLOCK)
            .ssdDir(tmp.resolve(ssd))
            .names((objectId) -> new ObjectName("ns", "object-" + objectId));
    }

    private static void assertRefused(final String context, final Executable second)
    {
        final ConcurrentConcludeException refused = assertThrows(ConcurrentConcludeException.class, second);
        assertTrue(refused.getMessage().startsWith(context + " is already concluded"), refused.getMessage());
    }
}
