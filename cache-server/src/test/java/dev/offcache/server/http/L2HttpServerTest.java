package dev.offcache.server.http;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;

import dev.offcache.range.origin.DelayingOrigin;
import dev.offcache.server.tier.BlockFileFormat;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class L2HttpServerTest
{
    private static final int BLOCK = ServerHarness.BLOCK;

    @TempDir
    Path tmp;

    private Path originDir;
    private byte[] big;
    private byte[] nested;
    private ServerHarness harness;
    private final HttpClient client = HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(5))
        .build();

    @BeforeEach
    void setUp() throws Exception
    {
        originDir = tmp.resolve("origin");
        Files.createDirectories(originDir.resolve("dir"));
        big = random(10 * BLOCK + 123, 1);
        nested = random(3 * BLOCK + 7, 2);
        Files.write(originDir.resolve("big.bin"), big);
        Files.write(originDir.resolve("dir").resolve("nested.bin"), nested);
        Files.write(originDir.resolve("empty.bin"), new byte[0]);
        Files.write(originDir.resolve("fail.bin"), new byte[1000]);
        Files.write(originDir.resolve("failsize.bin"), new byte[1000]);
        Files.write(originDir.resolve("failmid.bin"), random(3 * BLOCK, 4));
        Files.write(originDir.resolve("a+b c.bin"), random(100, 3));
        harness = start();
    }

    private ServerHarness start() throws InterruptedException
    {
        return new ServerHarness(originDir, tmp.resolve("ssd"), 4, 16L * BLOCK, TransportKind.AUTO);
    }

    @AfterEach
    void tearDown()
    {
        if (null != harness)
        {
            harness.close();
        }
    }

    static byte[] random(final int length, final long seed)
    {
        final byte[] bytes = new byte[length];
        new Random(seed).nextBytes(bytes);
        return bytes;
    }

    private HttpRequest.Builder request(final String path)
    {
        return harness.request(path);
    }

    private HttpResponse<byte[]> get(final String path, final String range) throws Exception
    {
        return harness.get(client, path, range);
    }

    private HttpResponse<String> post(final String path, final String body) throws Exception
    {
        return client.send(request(path).POST(HttpRequest.BodyPublishers.ofString(body)).build(),
            HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void randomRangesEqualTheOriginFromRamAndSsd() throws Exception
    {
        final HttpResponse<byte[]> whole = get("/obj/big.bin", null);
        assertEquals(200, whole.statusCode());
        assertArrayEquals(big, whole.body());
        assertEquals(String.valueOf(big.length), whole.headers().firstValue("Content-Length").orElseThrow());
        // 11 blocks over a 4-block RAM tier: most have been spilled to SSD by now
        final Random random = new Random(7);
        for (int i = 0; i < 60; i++)
        {
            final int start = random.nextInt(big.length);
            final int end = Math.min(big.length - 1, start + random.nextInt(3 * BLOCK));
            final HttpResponse<byte[]> part = get("/obj/big.bin", "bytes=" + start + "-" + end);
            assertEquals(206, part.statusCode());
            assertEquals("bytes " + start + "-" + end + "/" + big.length,
                part.headers().firstValue("Content-Range").orElseThrow());
            assertArrayEquals(Arrays.copyOfRange(big, start, end + 1), part.body(), "range " + start + "-" + end);
        }
        final HttpResponse<byte[]> open = get("/obj/big.bin", "bytes=" + (big.length - 5) + "-");
        assertArrayEquals(Arrays.copyOfRange(big, big.length - 5, big.length), open.body());
        final HttpResponse<byte[]> suffix = get("/obj/big.bin", "bytes=-300");
        assertArrayEquals(Arrays.copyOfRange(big, big.length - 300, big.length), suffix.body());
        final HttpResponse<byte[]> clamped = get("/obj/big.bin", "bytes=10-999999999");
        assertArrayEquals(Arrays.copyOfRange(big, 10, big.length), clamped.body());

        assertTrue(harness.store.metrics().ssdHits() > 0, "some ranges were served from the SSD tier");
        assertTrue(harness.store.metrics().ramHits() > 0, "some ranges were served from the RAM tier");
        assertEquals(big.length, harness.origin.bytesRequested(),
            "each block read from the origin once (no gap between RAM eviction and SSD)");
        assertTrue(harness.origin.gets() <= 11, "at most one GET per block: " + harness.origin.gets());

        final HttpResponse<byte[]> head = client.send(request("/obj/big.bin")
            .method("HEAD", HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofByteArray());
        assertEquals(200, head.statusCode());
        assertEquals(String.valueOf(big.length), head.headers().firstValue("Content-Length").orElseThrow());
        assertEquals(0, head.body().length);

        assertEquals(200, get("/obj/empty.bin", null).statusCode());
        assertEquals(0, get("/obj/empty.bin", null).body().length);
        assertArrayEquals(Files.readAllBytes(originDir.resolve("a+b c.bin")), get("/obj/a+b%20c.bin", null).body());
        awaitNoBlockHeldOutsideRam();
    }

    /** Every slot in use is a resident RAM block: Netty released every block view it was given. */
    private void awaitNoBlockHeldOutsideRam() throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (harness.store.liveSlots() != harness.store.ramBlocks())
        {
            assertTrue(System.nanoTime() < deadline, "slots in use " + harness.store.liveSlots() + " != resident " +
                harness.store.ramBlocks());
            Thread.sleep(10);
        }
    }

    @Test
    void multiRangeBodyIsFramedAndEqualsTheOrigin() throws Exception
    {
        final Random random = new Random(11);
        final StringBuilder json = new StringBuilder("{\"ranges\":[");
        final int[][] ranges = new int[40][];
        for (int i = 0; i < ranges.length; i++)
        {
            final int start = random.nextInt(big.length);
            final int end = i == 3 ? start : Math.min(big.length, start + 1 + random.nextInt(2 * BLOCK));
            ranges[i] = new int[] {start, end};
            json.append(i == 0 ? "" : ",").append('[').append(start).append(',').append(end).append(']');
        }
        json.append("]}");
        final HttpResponse<byte[]> response = client.send(request("/ranges/big.bin")
            .POST(HttpRequest.BodyPublishers.ofString(json.toString())).build(),
            HttpResponse.BodyHandlers.ofByteArray());
        assertEquals(200, response.statusCode());
        final ByteBuffer body = ByteBuffer.wrap(response.body()).order(ByteOrder.LITTLE_ENDIAN);
        for (final int[] range : ranges)
        {
            final long length = body.getLong();
            assertEquals(range[1] - range[0], length);
            final byte[] bytes = new byte[(int) length];
            body.get(bytes);
            assertArrayEquals(Arrays.copyOfRange(big, range[0], range[1]), bytes);
        }
        assertFalse(body.hasRemaining());
    }

    @Test
    void prefetchLandsOnSsdNotRamAndIsThenServedFromSsd() throws Exception
    {
        final HttpResponse<String> accepted = post("/prefetch",
            "{\"key\":\"dir/nested.bin\",\"size\":" + nested.length + "}\n" +
            "not json\n" +
            "{\"key\":\"../etc/passwd\",\"size\":10}\n" +
            "{\"key\":\"big.bin\",\"size\":" + big.length + ",\"ranges\":[[0,10],[" + (5 * BLOCK) + "," +
            (5 * BLOCK + 1) + "]]}\n");
        assertEquals(202, accepted.statusCode());
        assertEquals("{\"accepted\":2,\"rejected\":2,\"dropped\":0}", accepted.body());

        awaitSsdBlocks(3 + 1 + 2);
        assertEquals(0, harness.store.metrics().ramHits() + harness.store.metrics().ssdHits());
        assertEquals(0, harness.store.liveSlots(), "prefetch took no RAM slot");
        final long originReads = harness.origin.gets();
        assertEquals(nested.length + 2L * BLOCK, harness.origin.bytesRequested(), "each prefetched block fetched once");

        assertArrayEquals(nested, get("/obj/dir/nested.bin", null).body());
        assertEquals(4, harness.store.metrics().ssdHits(), "all four blocks came from SSD");
        assertEquals(originReads, harness.origin.gets(), "no origin read for prefetched blocks");
    }

    @Test
    void verifiedSsdBlocksAreSentStraightFromTheirFiles() throws Exception
    {
        assertEquals(202, post("/prefetch", "{\"key\":\"big.bin\",\"size\":" + big.length + "}").statusCode());
        awaitSsdBlocks(11);
        final long originReads = harness.origin.gets();

        // first pass: every block is read back and CRC-checked once (on the SSD reader threads), then sent from its
        // file; nothing is promoted into RAM
        assertArrayEquals(big, get("/obj/big.bin", null).body());
        assertEquals(11, harness.store.metrics().ssdVerifiedReads());
        assertEquals(11, harness.store.metrics().ssdZeroCopyReads(), "each sent from its file once checked");
        assertEquals(0, harness.store.ramBlocks(), "SSD hits take no RAM slot");

        // second pass and a 3-block range: every block from its file, none checked again
        final long ramHits = harness.store.metrics().ramHits();
        assertArrayEquals(big, get("/obj/big.bin", null).body());
        final HttpResponse<byte[]> part = get("/obj/big.bin", "bytes=1000-" + (2 * BLOCK + 5));
        assertArrayEquals(Arrays.copyOfRange(big, 1000, 2 * BLOCK + 6), part.body());
        assertEquals(11 + 11 + 3, harness.store.metrics().ssdZeroCopyReads());
        assertEquals(ramHits, harness.store.metrics().ramHits());
        assertEquals(11, harness.store.metrics().ssdVerifiedReads(), "no block read a second time");
        assertEquals(originReads, harness.origin.gets(), "no origin read");
        assertEquals(0, harness.store.metrics().ssdCorruptBlocks());
    }

    @Test
    void checksummedPartsOfVerifiedSsdBlocksGoOutWithTheCrcOfTheirBytes() throws Exception
    {
        assertEquals(202, post("/prefetch", "{\"key\":\"big.bin\",\"size\":" + big.length + "}").statusCode());
        awaitSsdBlocks(11);
        assertArrayEquals(big, get("/obj/big.bin", null).body());
        assertEquals(11, harness.store.metrics().ssdVerifiedReads(), "every block checked once: now sent from files");
        final long originReads = harness.origin.gets();

        // a part of block 0 (the last chunk: read on the SSD threads while the stream waits), parts of blocks 1..3
        // around whole blocks (sent from their files with the recorded CRC), two parts of one block (back to back)
        final long[][] ranges = {{1000, 1500}, {BLOCK + 7, 4L * BLOCK - 9}, {5L * BLOCK + 3, 5L * BLOCK + 40},
            {5L * BLOCK + 41, 6L * BLOCK}};
        for (final long[] range : ranges)
        {
            final HttpResponse<byte[]> answer = client.send(request("/obj/big.bin")
                .header("Range", "bytes=" + range[0] + "-" + (range[1] - 1))
                .header("Offcache-Checksum", "crc32c").build(), HttpResponse.BodyHandlers.ofByteArray());
            assertEquals(206, answer.statusCode());
            assertEquals("crc32c", answer.headers().firstValue("Offcache-Checksum").orElseThrow());
            final ByteBuffer body = ByteBuffer.wrap(answer.body());
            long at = range[0];
            while (at < range[1])
            {
                final int chunk = (int) Math.min(BLOCK - at % BLOCK, range[1] - at);
                final byte[] bytes = new byte[chunk];
                body.get(bytes);
                assertArrayEquals(Arrays.copyOfRange(big, (int) at, (int) at + chunk), bytes, "chunk at " + at);
                final CRC32C crc = new CRC32C();
                crc.update(bytes);
                assertEquals((int) crc.getValue(), body.getInt(), "the CRC after the chunk at " + at);
                at += chunk;
            }
            assertEquals(0, body.remaining(), "nothing after the last CRC");
        }
        assertEquals(11, harness.store.metrics().ssdVerifiedReads(), "no block checked again");
        assertEquals(originReads, harness.origin.gets(), "no origin read");
        assertEquals(0, harness.store.ramBlocks(), "parts read from files take no RAM slot");
    }

    @Test
    void fullPrefetchQueueDropsInsteadOfBlocking() throws Exception
    {
        final StringBuilder body = new StringBuilder();
        for (int i = 0; i < 200; i++)
        {
            body.append("{\"key\":\"big.bin\",\"size\":").append(big.length).append("}\n");
        }
        final long start = System.nanoTime();
        final HttpResponse<String> response = post("/prefetch", body.toString());
        assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(2), "did not block");
        assertEquals(202, response.statusCode());
        final int accepted = Integer.parseInt(response.body().replaceAll(".*\"accepted\":(\\d+).*", "$1"));
        final int dropped = Integer.parseInt(response.body().replaceAll(".*\"dropped\":(\\d+).*", "$1"));
        assertEquals(200, accepted + dropped, response.body());
        assertTrue(dropped >= 100, "a 4-deep queue drops most of 200: " + response.body());
    }

    private void awaitSsdBlocks(final int blocks) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (harness.store.ssd().blockCount() < blocks)
        {
            assertTrue(System.nanoTime() < deadline, "SSD has " + harness.store.ssd().blockCount() + " blocks");
            Thread.sleep(10);
        }
    }

    @Test
    void restartServesSsdDataWithoutOriginBlockReads() throws Exception
    {
        assertArrayEquals(big, get("/obj/big.bin", null).body());
        harness.close();
        harness = start();
        assertArrayEquals(big, get("/obj/big.bin", null).body());
        assertEquals(0, harness.origin.gets(), "every block came back from the SSD tier");
        assertEquals(11, harness.store.metrics().ssdHits());
    }

    @Test
    void corruptedBlockFileIsDetectedNotServedAndRefetched() throws Exception
    {
        final String line = "{\"key\":\"dir/nested.bin\",\"size\":" + nested.length + "}";
        assertEquals(202, post("/prefetch", line).statusCode());
        awaitSsdBlocks(4);
        try (var files = Files.walk(tmp.resolve("ssd").resolve("blocks")))
        {
            for (final Path file : files.filter((p) -> p.toString().endsWith(".blk")).toList())
            {
                try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE))
                {
                    channel.write(ByteBuffer.wrap(new byte[] {42, 42, 42}), BlockFileFormat.HEADER_LENGTH + 100);
                }
            }
        }
        final long originBytes = harness.origin.bytesRequested();
        assertArrayEquals(nested, get("/obj/dir/nested.bin", null).body());
        assertEquals(4, harness.store.metrics().ssdCorruptBlocks());
        assertEquals(originBytes + nested.length, harness.origin.bytesRequested(), "every corrupt block was refetched");
    }

    @Test
    void aSizeThatCannotBeHadIsACleanJson500AndAMissingObjectA404() throws Exception
    {
        final HttpResponse<byte[]> response = get("/obj/failsize.bin", null);
        assertEquals(500, response.statusCode());
        assertTrue(new String(response.body(), StandardCharsets.UTF_8).contains("\"status\":500"));
        assertEquals(404, get("/obj/missing.bin", null).statusCode());
        assertArrayEquals(nested, get("/obj/dir/nested.bin", null).body(), "the connection pool still works");
    }

    @Test
    void headersGoOutBeforeTheBodyIsFetchedSoAnOriginFailureCutsTheBody() throws Exception
    {
        final String response = rawUntilClosed("/obj/fail.bin");
        assertTrue(response.startsWith("HTTP/1.1 200"), response);
        assertTrue(response.contains("content-length: 1000"), response);
        assertTrue(response.endsWith("\r\n\r\n"), "no body byte: the origin failed after the headers went out");
        assertEquals(1, harness.server.metrics().streamsAborted());
        assertArrayEquals(nested, get("/obj/dir/nested.bin", null).body(), "the server carries on");
    }

    @Test
    void originFailureAfterTheFirstByteCutsTheConnectionAndTheServerCarriesOn() throws Exception
    {
        // block 0 cached (one GET of one block); the whole object then needs blocks 1..2, one GET, which fails
        assertEquals(206, get("/obj/failmid.bin", "bytes=0-9").statusCode());
        try (Socket socket = new Socket("127.0.0.1", harness.port()))
        {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write(("GET /obj/failmid.bin HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " +
                ServerHarness.KEY + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            final byte[] all = socket.getInputStream().readAllBytes();
            final String head = new String(all, 0, Math.min(all.length, 300), StandardCharsets.ISO_8859_1);
            assertTrue(head.startsWith("HTTP/1.1 200"), head);
            assertTrue(head.contains("content-length: " + 3 * BLOCK), head);
            final int body = all.length - (head.indexOf("\r\n\r\n") + 4);
            assertEquals(BLOCK, body, "the first block arrived, then the connection closed short of Content-Length");
        }
        assertEquals(1, harness.server.metrics().streamsAborted());
        assertArrayEquals(nested, get("/obj/dir/nested.bin", null).body());
        awaitNoBlockHeldOutsideRam();
    }

    private String rawUntilClosed(final String path) throws IOException
    {
        try (Socket socket = new Socket("127.0.0.1", harness.port()))
        {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write(("GET " + path + " HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " +
                ServerHarness.KEY + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            return new String(socket.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
        }
    }

    @Test
    void authIsRequiredExceptForHealthAndReady() throws Exception
    {
        final HttpResponse<String> none = client.send(HttpRequest.newBuilder(URI.create(harness.base() +
            "/obj/big.bin")).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(401, none.statusCode());
        assertTrue(none.body().contains("\"status\":401"));
        final HttpResponse<String> wrong = client.send(HttpRequest.newBuilder(URI.create(harness.base() +
            "/obj/big.bin")).header("Authorization", "Bearer " + ServerHarness.KEY + "x").build(),
            HttpResponse.BodyHandlers.ofString());
        assertEquals(401, wrong.statusCode());
        final HttpResponse<String> basic = client.send(HttpRequest.newBuilder(URI.create(harness.base() +
            "/metrics")).header("Authorization", "Basic " + ServerHarness.KEY).build(),
            HttpResponse.BodyHandlers.ofString());
        assertEquals(401, basic.statusCode());
        assertEquals(200, client.send(HttpRequest.newBuilder(URI.create(harness.base() + "/health")).build(),
            HttpResponse.BodyHandlers.ofString()).statusCode());
        assertEquals(200, client.send(HttpRequest.newBuilder(URI.create(harness.base() + "/ready")).build(),
            HttpResponse.BodyHandlers.ofString()).statusCode());
        final HttpResponse<String> metrics = client.send(request("/metrics").build(),
            HttpResponse.BodyHandlers.ofString());
        assertEquals(200, metrics.statusCode());
        assertTrue(metrics.body().contains("offcache_server_http_requests_total{endpoint=\"auth\",status=\"401\"} 3.0"),
            metrics.body());
        assertTrue(metrics.body().contains("offcache_server_tier_bytes{tier=\"ssd\"}"));
        assertTrue(metrics.body().contains("offcache_server_http_first_byte_seconds_count"));
    }

    @Test
    void badInputGetsClearErrorsAndTheServerStaysUp() throws Exception
    {
        for (final String path : new String[] {"/obj/../big.bin", "/obj/dir/../../x", "/obj/%2e%2e/big.bin",
            "/obj//etc/passwd", "/obj/", "/obj/a//b", "/obj/a%00b", "/obj/" + "k".repeat(2000), "/obj/%zz",
            "/obj/" + "%C3%A9".repeat(600)})
        {
            final String response = raw("GET " + path + " HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " +
                ServerHarness.KEY + "\r\n\r\n");
            assertTrue(response.startsWith("HTTP/1.1 400"), path + " -> " + firstLine(response));
            assertTrue(response.contains("\"status\":400"), response);
        }
        for (final String range : new String[] {"bytes=abc", "bytes=5-2", "bytes=0-1,3-4", "bytes=-",
            "bytes=1-2-3", "bytes=99999999999999999999-"})
        {
            assertEquals(400, get("/obj/big.bin", range).statusCode(), range);
        }
        final HttpResponse<byte[]> past = get("/obj/big.bin", "bytes=" + big.length + "-");
        assertEquals(416, past.statusCode());
        assertEquals("bytes */" + big.length, past.headers().firstValue("Content-Range").orElseThrow());
        assertEquals(416, get("/obj/empty.bin", "bytes=0-").statusCode());

        assertEquals(400, post("/ranges/big.bin", "{not json").statusCode());
        assertEquals(400, post("/ranges/big.bin", "{\"ranges\":[[5,2]]}").statusCode());
        assertEquals(400, post("/ranges/big.bin", "{\"ranges\":[[1,2,3]]}").statusCode());
        assertEquals(400, post("/ranges/big.bin", "{\"ranges\":\"x\"}").statusCode());
        assertEquals(400, post("/ranges/big.bin", "[]").statusCode());
        assertEquals(416, post("/ranges/big.bin", "{\"ranges\":[[" + (big.length + 1) + "," + (big.length + 2) +
            "]]}").statusCode());
        final HttpResponse<byte[]> clamped = client.send(request("/ranges/big.bin")
            .POST(HttpRequest.BodyPublishers.ofString("{\"ranges\":[[5,10],[" + (big.length - 3) + "," +
                (big.length + 100) + "]]}")).build(), HttpResponse.BodyHandlers.ofByteArray());
        assertEquals(200, clamped.statusCode(), "an end past the object is clamped, like a Range header's");
        assertEquals(String.valueOf(big.length), clamped.headers().firstValue("Offcache-Object-Size").orElseThrow());
        final ByteBuffer frames = ByteBuffer.wrap(clamped.body()).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(5, frames.getLong(0));
        assertEquals(3, frames.getLong(8 + 5), "the second frame holds the 3 bytes left");
        assertEquals(8 + 5 + 8 + 3, clamped.body().length);
        final StringBuilder tooMany = new StringBuilder("{\"ranges\":[");
        for (int i = 0; i < 4097; i++)
        {
            tooMany.append(i == 0 ? "" : ",").append("[0,1]");
        }
        final HttpResponse<String> many = post("/ranges/big.bin", tooMany.append("]}").toString());
        assertEquals(400, many.statusCode());
        assertTrue(many.body().contains("too many ranges"), many.body());
        assertEquals(413, post("/ranges/big.bin", "x".repeat(300 * 1024)).statusCode());
        assertEquals(404, get("/nope", null).statusCode());
        assertEquals(405, client.send(request("/obj/big.bin").DELETE().build(),
            HttpResponse.BodyHandlers.ofString()).statusCode());
        assertTrue(raw("GARBAGE\r\n\r\n").startsWith("HTTP/1.1 400"));

        assertEquals(200, get("/health", null).statusCode());
        assertArrayEquals(big, get("/obj/big.bin", null).body());
    }

    @Test
    void httpDetailsAsTheRfcsSayThem() throws Exception
    {
        // RFC 7235: the auth scheme is case-insensitive
        for (final String scheme : new String[] {"bearer", "BEARER", "bEaReR"})
        {
            final String response = raw("GET /obj/dir/nested.bin HTTP/1.1\r\nHost: x\r\nAuthorization: " + scheme +
                " " + ServerHarness.KEY + "\r\nConnection: close\r\n\r\n");
            assertTrue(response.startsWith("HTTP/1.1 200"), scheme + " -> " + firstLine(response));
        }
        final String auth = "Authorization: Bearer " + ServerHarness.KEY + "\r\n";
        // RFC 9110 14.2: a Range in a unit the server does not know is ignored (the whole object); units are
        // case-insensitive
        final HttpResponse<byte[]> items = get("/obj/big.bin", "items=0-1");
        assertEquals(200, items.statusCode());
        assertArrayEquals(big, items.body());
        final HttpResponse<byte[]> upper = get("/obj/big.bin", "Bytes=10-19");
        assertEquals(206, upper.statusCode());
        assertArrayEquals(Arrays.copyOfRange(big, 10, 20), upper.body());
        // two Range headers are not served silently by the first
        final String twice = raw("GET /obj/big.bin HTTP/1.1\r\nHost: x\r\n" + auth +
            "Range: bytes=0-9\r\nRange: bytes=20-29\r\nConnection: close\r\n\r\n");
        assertTrue(twice.startsWith("HTTP/1.1 400"), firstLine(twice));
        assertTrue(twice.contains("more than one Range header"), twice);
        // RFC 9110 15.5.6: a 405 names what the resource allows
        final HttpResponse<String> delete = client.send(request("/obj/big.bin").DELETE().build(),
            HttpResponse.BodyHandlers.ofString());
        assertEquals(405, delete.statusCode());
        assertEquals("GET, HEAD", delete.headers().firstValue("Allow").orElse(null));
        final HttpResponse<String> getRanges = client.send(request("/ranges/big.bin").GET().build(),
            HttpResponse.BodyHandlers.ofString());
        assertEquals(405, getRanges.statusCode());
        assertEquals("POST", getRanges.headers().firstValue("Allow").orElse(null));
        final HttpResponse<String> postMetrics = client.send(request("/metrics")
            .POST(HttpRequest.BodyPublishers.ofString("")).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(405, postMetrics.statusCode());
        assertEquals("GET", postMetrics.headers().firstValue("Allow").orElse(null));
    }

    @Test
    void pipelinedRequestsAreAnsweredInOrder() throws Exception
    {
        final String auth = "Authorization: Bearer " + ServerHarness.KEY + "\r\n";
        final String requests =
            "GET /obj/big.bin HTTP/1.1\r\nHost: x\r\n" + auth + "Range: bytes=0-99999\r\n\r\n" +
            "GET /obj/nope.bin HTTP/1.1\r\nHost: x\r\n" + auth + "\r\n" +
            "GET /obj/dir/nested.bin HTTP/1.1\r\nHost: x\r\n" + auth + "Range: bytes=5-9\r\n\r\n" +
            "GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
        try (Socket socket = new Socket("127.0.0.1", harness.port()))
        {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write(requests.getBytes(StandardCharsets.US_ASCII));
            final InputStream in = socket.getInputStream();
            final RawResponse first = RawResponse.read(in);
            assertEquals(206, first.status);
            assertArrayEquals(Arrays.copyOfRange(big, 0, 100000), first.body);
            assertEquals(404, RawResponse.read(in).status);
            final RawResponse third = RawResponse.read(in);
            assertEquals(206, third.status);
            assertArrayEquals(Arrays.copyOfRange(nested, 5, 10), third.body);
            assertEquals(200, RawResponse.read(in).status);
            assertEquals(-1, in.read(), "closed after Connection: close");
        }
    }

    @Test
    void shutdownDrainsInFlightResponsesAndRefusesNewConnections() throws Exception
    {
        // an origin that takes 100 ms per GET, one block at a time: the 11-block body streams for over a second
        harness.close();
        harness = new ServerHarness(originDir, tmp.resolve("ssd-slow"), 4, 16L * BLOCK, TransportKind.AUTO, 0,
            (origin) -> new DelayingOrigin(origin, TimeUnit.MILLISECONDS.toNanos(100)),
            (engine) -> engine.maxCoalescedGetBytes(BLOCK).streamWindows(1, 1));
        try (Socket slow = new Socket())
        {
            slow.setReceiveBufferSize(4096);
            slow.connect(new InetSocketAddress("127.0.0.1", harness.port()));
            slow.setSoTimeout(20_000);
            slow.getOutputStream().write(("GET /obj/big.bin HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " +
                ServerHarness.KEY + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            final InputStream in = slow.getInputStream();
            final byte[] first = in.readNBytes(1000);
            assertEquals(1000, first.length);

            final Thread closer = new Thread(harness.server::close);
            closer.start();
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            boolean refused = false;
            while (!refused && System.nanoTime() < deadline)
            {
                try
                {
                    new Socket("127.0.0.1", harness.port()).close();
                    Thread.sleep(10);
                }
                catch (final IOException ex)
                {
                    refused = true;
                }
            }
            assertTrue(refused, "new connections are refused while draining");
            assertTrue(closer.isAlive(), "close waits for the in-flight response");

            final ByteArrayOutputStream rest = new ByteArrayOutputStream();
            rest.write(first);
            final byte[] chunk = new byte[8192];
            int read;
            while ((read = in.read(chunk)) >= 0)
            {
                rest.write(chunk, 0, read);
                Thread.sleep(1);
            }
            final byte[] all = rest.toByteArray();
            final String head = new String(all, 0, 300, StandardCharsets.ISO_8859_1);
            final int bodyStart = head.indexOf("\r\n\r\n") + 4;
            assertArrayEquals(big, Arrays.copyOfRange(all, bodyStart, all.length), "the response completed");
            closer.join(15_000);
            assertFalse(closer.isAlive());
        }
    }

    private String raw(final String request) throws IOException
    {
        try (Socket socket = new Socket("127.0.0.1", harness.port()))
        {
            socket.setSoTimeout(10_000);
            final OutputStream out = socket.getOutputStream();
            out.write(request.getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            final RawResponse response = RawResponse.read(socket.getInputStream());
            return response.head + new String(response.body, StandardCharsets.UTF_8);
        }
    }

    private static String firstLine(final String response)
    {
        final int end = response.indexOf('\r');
        return end < 0 ? response : response.substring(0, end);
    }

    /** A minimal HTTP/1.1 response reader for Content-Length bodies. */
    static final class RawResponse
    {
        final int status;
        final String head;
        final byte[] body;

        private RawResponse(final int status, final String head, final byte[] body)
        {
            this.status = status;
            this.head = head;
            this.body = body;
        }

        static RawResponse read(final InputStream in) throws IOException
        {
            final ByteArrayOutputStream head = new ByteArrayOutputStream();
            int matched = 0;
            while (matched < 4)
            {
                final int b = in.read();
                if (b < 0)
                {
                    throw new IOException("connection closed in headers: " + head);
                }
                head.write(b);
                matched = (b == '\r' || b == '\n') && "\r\n\r\n".charAt(matched) == b ? matched + 1 :
                    (b == '\r' ? 1 : 0);
            }
            final String text = head.toString(StandardCharsets.ISO_8859_1);
            final int status = Integer.parseInt(text.substring(9, 12));
            long length = 0;
            for (final String line : text.split("\r\n"))
            {
                if (line.toLowerCase().startsWith("content-length:"))
                {
                    length = Long.parseLong(line.substring(15).trim());
                }
            }
            final byte[] body = in.readNBytes((int) length);
            if (body.length != length)
            {
                throw new IOException("short body: " + body.length + " of " + length);
            }
            return new RawResponse(status, text, body);
        }
    }
}
