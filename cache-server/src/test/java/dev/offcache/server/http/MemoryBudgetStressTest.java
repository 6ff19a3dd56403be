package dev.offcache.server.http;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MemoryBudgetStressTest
{
    private static final int BLOCK = ServerHarness.BLOCK;
    private static final long BUDGET = 8L * BLOCK;

    @TempDir
    Path tmp;

    @Test
    void budgetHoldsWithManyConcurrentLargeStreamsAndSlowReaders() throws Exception
    {
        final Path originDir = tmp.resolve("origin");
        Files.createDirectories(originDir);
        final byte[] large = L2HttpServerTest.random(32 * BLOCK + 999, 5);
        Files.write(originDir.resolve("large.bin"), large);
        final int clients = 24;
        final ExecutorService pool = Executors.newFixedThreadPool(clients);
        try (ServerHarness harness = new ServerHarness(originDir, tmp.resolve("ssd"), 8, BUDGET, TransportKind.AUTO))
        {
            final List<Future<byte[]>> results = new ArrayList<>();
            for (int i = 0; i < clients; i++)
            {
                final boolean slow = i % 2 == 0;
                results.add(pool.submit(() -> fetch(harness.port(), slow)));
            }
            for (final Future<byte[]> result : results)
            {
                assertArrayEquals(large, result.get(60, TimeUnit.SECONDS));
            }
            final MemoryBudget budget = harness.server.memoryBudget();
            System.out.printf("memory budget %d bytes, peak in flight %d bytes, %d budget waits, %d streams x %d " +
                "bytes%n", budget.limitBytes(), budget.peakBytes(), budget.waits(),
                clients, large.length);
            assertTrue(budget.peakBytes() <= BUDGET, "peak " + budget.peakBytes() + " > budget " + BUDGET);
            assertTrue(budget.peakBytes() >= BUDGET / 2, "the budget was actually exercised: " + budget.peakBytes());
            assertTrue(budget.waits() > 0, "streams had to wait for the budget");
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (budget.inFlightBytes() != 0 && System.nanoTime() < deadline)
            {
                Thread.sleep(10);
            }
            assertEquals(0, budget.inFlightBytes(), "every reservation was returned");
            while (harness.store.liveSlots() != harness.store.ramBlocks() && System.nanoTime() < deadline)
            {
                Thread.sleep(10);
            }
            assertEquals(harness.store.ramBlocks(), harness.store.liveSlots(), "Netty released every block view");
        }
        finally
        {
            pool.shutdownNow();
        }
    }

    private static byte[] fetch(final int port, final boolean slow) throws Exception
    {
        try (Socket socket = new Socket())
        {
            if (slow)
            {
                socket.setReceiveBufferSize(4096);
            }
            socket.connect(new InetSocketAddress("127.0.0.1", port));
            socket.setSoTimeout(30_000);
            socket.getOutputStream().write(("GET /obj/large.bin HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " +
                ServerHarness.KEY + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            final InputStream in = socket.getInputStream();
            if (!slow)
            {
                final L2HttpServerTest.RawResponse response = L2HttpServerTest.RawResponse.read(in);
                assertEquals(200, response.status);
                return response.body;
            }
            final ByteArrayOutputStream received = new ByteArrayOutputStream();
            final byte[] chunk = new byte[8192];
            int read;
            while ((read = in.read(chunk)) >= 0)
            {
                received.write(chunk, 0, read);
                Thread.sleep(2);
            }
            final byte[] all = received.toByteArray();
            final String text = new String(all, 0, Math.min(all.length, 400), StandardCharsets.ISO_8859_1);
            final int bodyStart = text.indexOf("\r\n\r\n") + 4;
            assertTrue(text.startsWith("HTTP/1.1 200"), text);
            return Arrays.copyOfRange(all, bodyStart, all.length);
        }
    }
}
