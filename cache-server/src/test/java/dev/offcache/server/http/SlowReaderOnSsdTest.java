package dev.offcache.server.http;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A reader that stops reading a long response served from verified SSD blocks (file regions, which Netty's
 * writability does not count) holds at most two chunks ({@link ResponseStream#MAX_CHUNKS_IN_FLIGHT}) of the server's
 * budget and open files, however large the range and the budget are; it then gets every byte.
 */
class SlowReaderOnSsdTest
{
    private static final int BLOCK = ServerHarness.BLOCK;
    private static final int BLOCKS = 192;

    @TempDir
    Path tmp;

    @Test
    void aStalledReaderOfSsdBlocksHoldsAtMostTwoChunks() throws Exception
    {
        final Path originDir = tmp.resolve("origin");
        Files.createDirectories(originDir);
        final byte[] object = L2HttpServerTest.random(BLOCKS * BLOCK, 31);
        Files.write(originDir.resolve("long.bin"), object);
        try (ServerHarness harness = new ServerHarness(originDir, tmp.resolve("ssd"), 4, (long) BLOCKS * BLOCK,
            TransportKind.AUTO))
        {
            final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            harness.prefetchToSsd("long.bin", object.length, BLOCKS);
            // one whole read checks every block's CRC; from now on blocks not in RAM go out as file regions
            assertArrayEquals(object, client.send(HttpRequest.newBuilder(URI.create(harness.base() + "/obj/long.bin"))
                .header("Authorization", "Bearer " + ServerHarness.KEY).build(),
                HttpResponse.BodyHandlers.ofByteArray()).body());
            final long zeroCopyBefore = harness.store.metrics().ssdZeroCopyReads();

            final MemoryBudget budget = harness.server.memoryBudget();
            try (Socket socket = new Socket())
            {
                socket.setReceiveBufferSize(4096);
                socket.connect(new InetSocketAddress("127.0.0.1", harness.port()));
                socket.setSoTimeout(30_000);
                socket.getOutputStream().write(("GET /obj/long.bin HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " +
                    ServerHarness.KEY + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                // read nothing: wait until the server has started sending from files and filled the socket
                // buffers (the bound below must hold at every moment, so waiting longer only strengthens it)
                final long sendDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                while (harness.store.metrics().ssdZeroCopyReads() == zeroCopyBefore)
                {
                    assertTrue(System.nanoTime() < sendDeadline, "nothing was sent from a file");
                    Thread.sleep(5);
                }
                Thread.sleep(500);
                final long held = budget.inFlightBytes();
                // two chunks in flight per stream (ResponseStream.MAX_CHUNKS_IN_FLIGHT), however large the budget
                assertTrue(held <= 2L * BLOCK,
                    "a stalled reader holds " + held + " bytes of the budget");
                final long sentFromFiles = harness.store.metrics().ssdZeroCopyReads() - zeroCopyBefore;
                assertTrue(sentFromFiles > 0 && sentFromFiles < BLOCKS, "file regions opened so far: " + sentFromFiles);

                final InputStream in = socket.getInputStream();
                final ByteArrayOutputStream received = new ByteArrayOutputStream();
                final byte[] chunk = new byte[65536];
                int read;
                while ((read = in.read(chunk)) >= 0)
                {
                    received.write(chunk, 0, read);
                }
                final byte[] all = received.toByteArray();
                final String head = new String(all, 0, 400, StandardCharsets.ISO_8859_1);
                assertTrue(head.startsWith("HTTP/1.1 200"), head);
                final int bodyStart = head.indexOf("\r\n\r\n") + 4;
                assertArrayEquals(object, Arrays.copyOfRange(all, bodyStart, all.length));
            }
            final long drainDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (budget.inFlightBytes() != 0 && System.nanoTime() < drainDeadline)
            {
                Thread.sleep(5);
            }
            assertEquals(0, budget.inFlightBytes(), "every reservation returned");
        }
    }
}
