package dev.offcache.server.http;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

import io.netty.channel.epoll.Epoll;
import io.netty.channel.uring.IoUring;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The same exact-bytes checks on every transport this machine offers (native ones are skipped when missing). */
class TransportsTest
{
    @TempDir
    Path tmp;

    @ParameterizedTest
    @EnumSource(value = TransportKind.class, names = {"EPOLL", "IO_URING", "NIO"})
    void servesExactBytesOnEachTransport(final TransportKind transport) throws Exception
    {
        Assumptions.assumeTrue(transport != TransportKind.EPOLL || Epoll.isAvailable(), "epoll unavailable");
        Assumptions.assumeTrue(transport != TransportKind.IO_URING || IoUring.isAvailable(), "io_uring unavailable");
        final Path originDir = tmp.resolve("origin");
        Files.createDirectories(originDir);
        final byte[] data = L2HttpServerTest.random(5 * ServerHarness.BLOCK + 321, 13);
        Files.write(originDir.resolve("t.bin"), data);
        try (ServerHarness harness = new ServerHarness(originDir, tmp.resolve("ssd"), 2, 8L * ServerHarness.BLOCK,
            transport))
        {
            assertEquals(transport, harness.server.transport());
            final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            for (int round = 0; round < 2; round++)
            {
                final HttpResponse<byte[]> whole = client.send(HttpRequest.newBuilder(URI.create(harness.base() +
                    "/obj/t.bin")).header("Authorization", "Bearer " + ServerHarness.KEY).build(),
                    HttpResponse.BodyHandlers.ofByteArray());
                assertArrayEquals(data, whole.body(), transport + " round " + round);
                final HttpResponse<byte[]> part = client.send(HttpRequest.newBuilder(URI.create(harness.base() +
                    "/obj/t.bin")).header("Authorization", "Bearer " + ServerHarness.KEY)
                    .header("Range", "bytes=70000-200000").build(), HttpResponse.BodyHandlers.ofByteArray());
                assertEquals(206, part.statusCode());
                assertArrayEquals(Arrays.copyOfRange(data, 70000, 200001), part.body());
            }
            // verified SSD blocks go out as file regions (sendfile / splice / transferTo, by transport); wait until
            // every block is in RAM or on SSD (evictions spill asynchronously), then read from both

            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (harness.store.ssd().blockCount() + harness.store.ramBlocks() < 6)
            {
                assertTrue(System.nanoTime() < deadline, "spills did not land on SSD");
                Thread.sleep(10);
            }
            for (int round = 0; round < 3; round++)
            {
                final HttpResponse<byte[]> whole = client.send(HttpRequest.newBuilder(URI.create(harness.base() +
                    "/obj/t.bin")).header("Authorization", "Bearer " + ServerHarness.KEY).build(),
                    HttpResponse.BodyHandlers.ofByteArray());
                assertArrayEquals(data, whole.body(), transport + " SSD round " + round);
            }
            assertTrue(harness.store.metrics().ssdZeroCopyReads() > 0, transport + ": no block sent from its file");
        }
    }
}
