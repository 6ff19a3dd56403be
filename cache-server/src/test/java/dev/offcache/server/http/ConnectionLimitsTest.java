package dev.offcache.server.http;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.PushbackInputStream;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What one connection (or one client) may take of a real server on 127.0.0.1: pipelined requests past the codec's
 * depth end the connection after the last complete response, never in the middle of one; clients that send a byte
 * at a time are closed at the request-read deadline, so a real request gets a slot; one address gets at most its
 * per-address share of the connections.
 */
class ConnectionLimitsTest
{
    private static final int BLOCKS = 16;

    @TempDir
    Path tmp;

    private Path originDir;
    private byte[] data;

    @BeforeEach
    void setUp() throws IOException
    {
        originDir = tmp.resolve("origin");
        Files.createDirectories(originDir);
        data = L2HttpServerTest.random(BLOCKS * ServerHarness.BLOCK, 19);
        Files.write(originDir.resolve("data.bin"), data);
    }

    private static String rangeGet(final long start, final long end)
    {
        return "GET /obj/data.bin HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + ServerHarness.KEY +
            "\r\nRange: bytes=" + start + "-" + end + "\r\n\r\n";
    }

    @Test
    void morePipelinedRequestsThanTheDepthEndAfterTheLastCompleteResponse() throws Exception
    {
        final int requests = 150;
        try (ServerHarness harness = new ServerHarness(originDir, tmp.resolve("ssd"), 32, 64L * ServerHarness.BLOCK,
            TransportKind.AUTO);
            Socket socket = new Socket("127.0.0.1", harness.port()))
        {
            socket.setSoTimeout(20_000);
            final StringBuilder all = new StringBuilder();
            for (int i = 0; i < requests; i++)
            {
                final long start = (long) (i % BLOCKS) * ServerHarness.BLOCK;
                all.append(rangeGet(start, start + ServerHarness.BLOCK - 1));
            }
            socket.getOutputStream().write(all.toString().getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().flush();
            final PushbackInputStream in = new PushbackInputStream(
                new BufferedInputStream(socket.getInputStream(), 1 << 16));
            int answered = 0;
            String lastHead = "";
            while (answered < requests)
            {
                final L2HttpServerTest.RawResponse response = readOrEnd(in);
                if (response == null)
                {
                    break;
                }
                assertEquals(206, response.status, response.head);
                final int start = (answered % BLOCKS) * ServerHarness.BLOCK;
                assertArrayEquals(Arrays.copyOfRange(data, start, start + ServerHarness.BLOCK), response.body,
                    "response " + answered);
                lastHead = response.head;
                answered++;
            }
            assertTrue(answered >= 128, "the requests the codec accepted are all answered: " + answered);
            if (answered < requests)
            {
                assertTrue(lastHead.toLowerCase().contains("connection: close"), lastHead);
                assertEquals(1, harness.server.metrics().connectionsRefused(), "the cut is counted");
            }
        }
    }

    private ServerHarness harness(final UnaryOperator<L2HttpServer.Context> settings) throws InterruptedException
    {
        return new ServerHarness(ServerHarness.BLOCK, originDir, tmp.resolve("ssd"), 8, 16L * ServerHarness.BLOCK,
            TransportKind.AUTO, 0, UnaryOperator.identity(), UnaryOperator.identity(), settings);
    }

    /** A whole GET of the object on a new connection, or null when the server closed it without an answer. */
    private static L2HttpServerTest.RawResponse tryGet(final int port) throws IOException
    {
        try (Socket socket = new Socket("127.0.0.1", port))
        {
            socket.setSoTimeout(5_000);
            socket.getOutputStream().write(("GET /obj/data.bin HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " +
                ServerHarness.KEY + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            return readOrEnd(new PushbackInputStream(socket.getInputStream()));
        }
        catch (final SocketException ex)
        {
            return null;
        }
    }

    @Test
    void clientsSendingAByteAtATimeAreClosedAtTheReadDeadlineAndARealRequestGetsThrough() throws Exception
    {
        final int slots = 6;
        try (ServerHarness harness = harness((c) -> c.maxConnections(slots)
            .requestReadTimeout(Duration.ofMillis(600))))
        {
            final List<Socket> slow = new ArrayList<>();
            final AtomicInteger closedByServer = new AtomicInteger();
            final Thread dripper = new Thread(() ->
            {
                // one byte of a never-ending header every 100 ms on each: the idle timer never fires
                for (int round = 0; round < 300 && closedByServer.get() < slots; round++)
                {
                    for (final Socket socket : slow)
                    {
                        try
                        {
                            socket.getOutputStream().write('a');
                        }
                        catch (final IOException ex)
                        {
                            if (!socket.isClosed())
                            {
                                closedByServer.incrementAndGet();
                                closeQuietly(socket);
                            }
                        }
                    }
                    sleep(100);
                }
            }, "slow-header-clients");
            for (int i = 0; i < slots; i++)
            {
                final Socket socket = new Socket("127.0.0.1", harness.port());
                socket.getOutputStream().write("GET /obj/data.bin HTTP/1.1\r\nX-Slow: ".getBytes(
                    StandardCharsets.US_ASCII));
                slow.add(socket);
            }
            final long start = System.nanoTime();
            awaitTrue(() -> harness.server.openConnections() == slots, "every slot taken");
            dripper.start();
            assertNull(tryGet(harness.port()), "every slot is taken: a real request is refused");
            L2HttpServerTest.RawResponse answer = null;
            while (answer == null && System.nanoTime() - start < TimeUnit.SECONDS.toNanos(20))
            {
                sleep(50);
                answer = tryGet(harness.port());
            }
            assertTrue(answer != null, "a real request got through while the slow clients kept dripping");
            assertEquals(200, answer.status);
            assertArrayEquals(data, answer.body);
            assertTrue(harness.server.metrics().connectionsRefused() >= slots, "the closes are counted");
            dripper.join(TimeUnit.SECONDS.toMillis(40));
            for (final Socket socket : slow)
            {
                closeQuietly(socket);
            }
        }
    }

    @Test
    void oneAddressGetsAtMostItsShareOfTheConnections() throws Exception
    {
        try (ServerHarness harness = harness((c) -> c.maxConnections(100).maxConnectionsPerAddress(3)))
        {
            final List<Socket> held = new ArrayList<>();
            for (int i = 0; i < 3; i++)
            {
                held.add(new Socket("127.0.0.1", harness.port()));
            }
            awaitTrue(() -> harness.server.openConnections() == 3, "three connections open");
            assertNull(tryGet(harness.port()), "a fourth from the same address is closed at once");
            assertEquals(1, harness.server.metrics().connectionsRefused());
            closeQuietly(held.remove(0));
            awaitTrue(() -> harness.server.openConnections() == 2, "a slot is free again");
            final L2HttpServerTest.RawResponse answer = tryGet(harness.port());
            assertTrue(answer != null && answer.status == 200, "the freed slot serves a request");
            assertArrayEquals(data, answer.body);
            for (final Socket socket : held)
            {
                closeQuietly(socket);
            }
        }
    }

    private static void awaitTrue(final java.util.function.BooleanSupplier condition, final String what)
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean())
        {
            assertTrue(System.nanoTime() < deadline, "timed out waiting: " + what);
            sleep(10);
        }
    }

    private static void sleep(final long ms)
    {
        try
        {
            Thread.sleep(ms);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

    private static void closeQuietly(final Socket socket)
    {
        try
        {
            socket.close();
        }
        catch (final IOException ignored)
        {
            // gone already
        }
    }

    /** The next whole response, or null when the connection ended cleanly between responses. */
    private static L2HttpServerTest.RawResponse readOrEnd(final PushbackInputStream in) throws IOException
    {
        final int first = in.read();
        if (first < 0)
        {
            return null;
        }
        in.unread(first);
        return L2HttpServerTest.RawResponse.read(in);
    }
}
