package dev.offcache.server.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.MappedByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import dev.offcache.core.counters.CounterTypes;
import dev.offcache.range.metrics.CountersFile;
import dev.offcache.range.metrics.MetricNames;
import dev.offcache.range.testing.Exposition;
import org.agrona.IoUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.CountersReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The server's own counters in {@code --server-counters-file}, read as another process would (a bare Agrona
 * {@link CountersReader} over the mapped file, and {@link CountersFile#read}) from a real server on loopback: each
 * response counted once under its endpoint and status, the same numbers {@code /metrics} shows; and a close while
 * requests are in flight frees the region only after the event loops stopped (no write into freed memory, which
 * would crash this JVM), leaving the final values in the file.
 */
class ServerCountersFileTest
{
    private static final String KEY = "counters-key-0123456789";
    private static final int BLOCK = 64 * 1024;

    @TempDir
    Path tmp;

    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(5)).build();

    private ServerProgram start(final Path counters, final byte[] object) throws Exception
    {
        final Path origin = Files.createDirectories(tmp.resolve("origin"));
        Files.write(origin.resolve("o.bin"), object);
        final CommandLine commandLine = OffcacheServerCommand.commandLine(Map.of("OFFCACHE_API_KEYS", KEY));
        commandLine.setOut(new PrintWriter(new StringWriter(), true));
        commandLine.setErr(new PrintWriter(new StringWriter(), true));
        commandLine.parseArgs("--listen", "127.0.0.1:0", "--origin-dir", origin.toString(), "--block-size-kb", "64",
            "--ram-mb", "4", "--memory-budget-mb", "4", "--server-counters-file", counters.toString(),
            "--shutdown-grace-seconds", "1");
        return commandLine.<OffcacheServerCommand>getCommand().start();
    }

    private HttpResponse<byte[]> send(
        final ServerProgram program, final String method, final String path, final boolean auth,
        final String... headers) throws Exception
    {
        final HttpRequest.Builder request = HttpRequest.newBuilder(
            URI.create("http://127.0.0.1:" + program.server().address().getPort() + path))
            .method(method, HttpRequest.BodyPublishers.noBody());
        if (auth)
        {
            request.header("Authorization", "Bearer " + KEY);
        }
        for (int i = 0; i < headers.length; i += 2)
        {
            request.header(headers[i], headers[i + 1]);
        }
        return client.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    private static String requests(final String endpoint, final String status)
    {
        return MetricNames.labelled("offcache_server_http_requests_total", "endpoint", endpoint, "status", status);
    }

    /** Every counter of a counters file by label, read with Agrona alone; each must carry the server's type id. */
    private static Map<String, Long> readWithAgrona(final Path file)
    {
        final MappedByteBuffer mapping = IoUtil.mapExistingFile(file.toFile(), "outside reader");
        try
        {
            final UnsafeBuffer whole = new UnsafeBuffer(mapping);
            assertEquals(CountersFile.MAGIC, whole.getInt(0));
            final int metadataLength = whole.getInt(8);
            final CountersReader reader = new CountersReader(
                new UnsafeBuffer(whole, CountersFile.HEADER_LENGTH, metadataLength),
                new UnsafeBuffer(whole, CountersFile.HEADER_LENGTH + metadataLength, whole.getInt(12)));
            final Map<String, Long> values = new LinkedHashMap<>();
            reader.forEach((id, typeId, key, label) ->
            {
                assertEquals(CounterTypes.L2_SERVER, typeId, label);
                values.put(label, reader.getCounterValue(id));
            });
            return values;
        }
        finally
        {
            IoUtil.unmap(mapping);
        }
    }

    @Test
    void eachResponseIsCountedOnceUnderItsEndpointAndStatusInTheFile() throws Exception
    {
        final byte[] object = new byte[4 * BLOCK];
        new Random(7).nextBytes(object);
        final Path file = tmp.resolve("server-counters.dat");
        final int n = 5;
        try (ServerProgram program = start(file, object))
        {
            for (int i = 0; i < n; i++)
            {
                assertEquals(200, send(program, "GET", "/health", false).statusCode());
                assertEquals(206, send(program, "GET", "/obj/o.bin", true, "Range", "bytes=0-99").statusCode());
                assertEquals(200, send(program, "GET", "/obj/o.bin", true).statusCode());
                assertEquals(404, send(program, "GET", "/obj/missing.bin", true).statusCode());
                assertEquals(401, send(program, "GET", "/obj/o.bin", false).statusCode());
                assertEquals(405, send(program, "DELETE", "/obj/o.bin", true).statusCode());
                assertEquals(404, send(program, "GET", "/nowhere", true).statusCode());
            }
            assertEquals(400, send(program, "GET", "/obj/o.bin", true, "Range", "bytes=0-99", "Range",
                "bytes=5-9").statusCode(), "two Range headers are refused");

            final Map<String, Long> outside = readWithAgrona(file);
            assertEquals((long) n, outside.get(requests("health", "200")));
            assertEquals((long) n, outside.get(requests("obj", "206")));
            assertEquals((long) n, outside.get(requests("obj", "200")));
            assertEquals((long) n, outside.get(requests("obj", "404")));
            assertEquals((long) n, outside.get(requests("auth", "401")));
            assertEquals((long) n, outside.get(requests("obj", "405")));
            assertEquals((long) n, outside.get(requests("other", "404")));
            assertEquals(1L, outside.get(requests("obj", "400")));
            assertEquals(7L * n + 1, outside.entrySet().stream()
                .filter((e) -> e.getKey().startsWith("offcache_server_http_requests_total"))
                .mapToLong(Map.Entry::getValue).sum(), "no response counted twice, none elsewhere: " + outside);
            // the body bytes: n ranges of 100 bytes and n whole objects, plus the small error bodies
            assertTrue(outside.get("offcache_server_http_response_bytes_total") >= n * (100L + object.length));
            // the tiers count in the same file: the object's 4 blocks are in RAM
            assertEquals(4L, outside.get(MetricNames.labelled("offcache_server_tier_blocks", "tier", "ram")));
            assertEquals(outside, CountersFile.read(file), "CountersFile.read sees the same");

            // one counters layer: /metrics shows the same numbers (the scrape itself is still in flight)
            final Exposition scrape = Exposition.parse(
                new String(send(program, "GET", "/metrics", true).body(), StandardCharsets.UTF_8));
            for (final String[] pair : new String[][] {{"health", "200"}, {"obj", "206"}, {"obj", "200"},
                {"obj", "404"}, {"auth", "401"}, {"obj", "405"}, {"other", "404"}, {"obj", "400"}})
            {
                assertEquals((double) outside.get(requests(pair[0], pair[1])),
                    scrape.value("offcache_server_http_requests_total", "endpoint", pair[0], "status", pair[1]),
                    pair[0] + " " + pair[1]);
            }
            assertEquals(4.0, scrape.value("offcache_server_tier_blocks", "tier", "ram"));
        }
        assertEquals((long) n, CountersFile.read(file).get(requests("obj", "206")),
            "the file stays after close with the final values");
    }

    /**
     * Clients keep whole-object GETs in flight while the program closes: the close drains, stops the event loops,
     * closes the store, and only then frees the counters. The JVM survives (a write into the unmapped file would
     * crash it), and the file holds at least every 200 a client received, and no more than the requests sent.
     */
    @Test
    void closingWhileRequestsAreInFlightWritesNoCounterIntoFreedMemory() throws Exception
    {
        final byte[] object = new byte[16 * BLOCK];
        new Random(8).nextBytes(object);
        for (int round = 0; round < 3; round++)
        {
            final Path file = tmp.resolve("in-flight-" + round + ".dat");
            final ServerProgram program = start(file, object);
            final AtomicBoolean stop = new AtomicBoolean();
            final AtomicLong sent = new AtomicLong();
            final AtomicLong received = new AtomicLong();
            final List<Thread> clients = new ArrayList<>();
            for (int c = 0; c < 4; c++)
            {
                final Thread thread = new Thread(() ->
                {
                    while (!stop.get())
                    {
                        sent.incrementAndGet();
                        try
                        {
                            if (200 == send(program, "GET", "/obj/o.bin", true).statusCode())
                            {
                                received.incrementAndGet();
                            }
                        }
                        catch (final IOException ex)
                        {
                            // the server went away mid-request: expected while it closes
                        }
                        catch (final Exception ex)
                        {
                            return;
                        }
                    }
                });
                thread.start();
                clients.add(thread);
            }
            while (received.get() < 20)
            {
                Thread.sleep(5);
            }
            program.close();
            stop.set(true);
            for (final Thread thread : clients)
            {
                thread.join(30_000);
            }
            final long counted = CountersFile.read(file).get(requests("obj", "200"));
            assertTrue(counted >= received.get(), counted + " counted, " + received.get() + " received");
            assertTrue(counted <= sent.get(), counted + " counted, " + sent.get() + " sent");
        }
    }
}
