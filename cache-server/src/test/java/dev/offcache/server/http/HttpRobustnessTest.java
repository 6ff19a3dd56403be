package dev.offcache.server.http;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Seeded random garbage against a real server: odd methods, paths, escapes, Range headers, lengths and bodies.
 * Every answer must be a well-formed status the API defines for client input (never a 500), and afterwards the
 * server must still serve exact bytes.
 */
class HttpRobustnessTest
{
    private static final Set<Integer> CLIENT_STATUSES =
        Set.of(200, 202, 206, 400, 401, 404, 405, 413, 416, 417, 431, 501);
    private static final String[] METHODS = {"GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "G\u00e9T", "get",
        "CONNECT"};
    private static final String[] PATH_PARTS = {"/obj/", "/ranges/", "/prefetch", "/metrics", "/health", "data.bin",
        "..", ".", "%2e%2e", "%2F", "%00", "%", "%zz", "//", "a b", "\u00e9", "%C3%A9", "?x=1", "#f", "+", "k"};
    private static final String[] RANGES = {"bytes=0-0", "bytes=-1", "bytes=0-", "bytes=5-1", "bytes=,", "bytes=-",
        "bytes=1-2,3-4", "bytes=99999999999999999999-", "bytes= 1 - 2 ", "bits=0-1", "", "bytes=-0", "bytes=0--1",
        "bytes=18446744073709551616-"};
    private static final String[] BODIES = {"", "{", "{\"ranges\":[[0,1]]}", "{\"ranges\":[[-1,2]]}",
        "{\"ranges\":[[0,9999999999999999999999]]}", "{\"ranges\":[[1.5,2]]}", "[[[[[[[[[[[[[[[[[[[[",
        "{\"key\":\"data.bin\",\"size\":10}\n{\"key\":1}\n\n", "\u0000\u0001\u0002", "null"};

    @TempDir
    Path tmp;

    @Test
    void randomGarbageGetsClientErrorsAndTheServerKeepsServing() throws Exception
    {
        final Path originDir = tmp.resolve("origin");
        Files.createDirectories(originDir);
        final byte[] data = L2HttpServerTest.random(3 * ServerHarness.BLOCK + 17, 9);
        Files.write(originDir.resolve("data.bin"), data);
        final Random random = new Random(20261129);
        final TreeMap<Integer, Integer> statuses = new TreeMap<>();
        try (ServerHarness harness = new ServerHarness(originDir, tmp.resolve("ssd"), 4, 16L * ServerHarness.BLOCK,
            TransportKind.AUTO))
        {
            for (int i = 0; i < 300; i++)
            {
                final byte[] request = randomRequest(random);
                final int status = send(harness.port(), request);
                statuses.merge(status, 1, Integer::sum);
                assertTrue(status == -1 || CLIENT_STATUSES.contains(status),
                    "status " + status + " for " + new String(request, StandardCharsets.ISO_8859_1));
            }
            System.out.println("statuses for 300 random requests (-1: closed without a response): " + statuses);
            assertTrue(statuses.getOrDefault(400, 0) > 10, "bad input was seen and refused: " + statuses);

            final L2HttpServerTest.RawResponse ok = get(harness.port(), "GET /obj/data.bin HTTP/1.1\r\nHost: x\r\n" +
                "Authorization: Bearer " + ServerHarness.KEY + "\r\nConnection: close\r\n\r\n");
            assertEquals(200, ok.status);
            assertArrayEquals(data, ok.body);
        }
    }

    private static byte[] randomRequest(final Random random) throws IOException
    {
        final StringBuilder head = new StringBuilder();
        head.append(METHODS[random.nextInt(METHODS.length)]).append(' ');
        final int parts = 1 + random.nextInt(4);
        for (int p = 0; p < parts; p++)
        {
            head.append(PATH_PARTS[random.nextInt(PATH_PARTS.length)]);
        }
        head.append(random.nextInt(10) == 0 ? " HTTP/1.0" : " HTTP/1.1").append("\r\nHost: x\r\n");
        if (random.nextInt(10) < 7)
        {
            head.append("Authorization: Bearer ").append(random.nextBoolean() ? ServerHarness.KEY : "nope")
                .append("\r\n");
        }
        if (random.nextBoolean())
        {
            head.append("Range: ").append(RANGES[random.nextInt(RANGES.length)]).append("\r\n");
        }
        if (random.nextInt(20) == 0)
        {
            head.append("X-Big: ").append("y".repeat(20_000)).append("\r\n");
        }
        final byte[] body = random.nextInt(5) == 0 ? randomBytes(random, random.nextInt(300_000)) :
            BODIES[random.nextInt(BODIES.length)].getBytes(StandardCharsets.UTF_8);
        final int declared = random.nextInt(8) == 0 ? body.length + random.nextInt(10) - 5 : body.length;
        if (declared >= 0)
        {
            head.append("Content-Length: ").append(declared).append("\r\n");
        }
        head.append("Connection: close\r\n\r\n");
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(head.toString().getBytes(StandardCharsets.UTF_8));
        out.write(body, 0, Math.max(0, Math.min(body.length, declared)));
        return out.toByteArray();
    }

    private static byte[] randomBytes(final Random random, final int length)
    {
        final byte[] bytes = new byte[length];
        random.nextBytes(bytes);
        return bytes;
    }

    private static int send(final int port, final byte[] request) throws IOException
    {
        try (Socket socket = new Socket("127.0.0.1", port))
        {
            socket.setSoTimeout(10_000);
            try
            {
                socket.getOutputStream().write(request);
                socket.shutdownOutput();
            }
            catch (final IOException ex)
            {
                // the server may close first (oversized body): read what it said
            }
            final InputStream in = socket.getInputStream();
            final byte[] start;
            try
            {
                start = in.readNBytes(12);
            }
            catch (final SocketException ex)
            {
                // reset: the server closed on a request it would not read to the end
                return -1;
            }
            if (start.length < 12)
            {
                return -1;
            }
            final String line = new String(start, StandardCharsets.ISO_8859_1);
            assertTrue(line.startsWith("HTTP/1.1 "), "a well-formed status line: " + Arrays.toString(start));
            try
            {
                in.readAllBytes();
            }
            catch (final SocketException ex)
            {
                // reset after the answer: unread request bytes were discarded
            }
            return Integer.parseInt(line.substring(9, 12));
        }
        catch (final SocketTimeoutException ex)
        {
            throw new AssertionError("no answer and no close within 10 s", ex);
        }
    }

    private static L2HttpServerTest.RawResponse get(final int port, final String request) throws IOException
    {
        try (Socket socket = new Socket("127.0.0.1", port))
        {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
            return L2HttpServerTest.RawResponse.read(socket.getInputStream());
        }
    }
}
