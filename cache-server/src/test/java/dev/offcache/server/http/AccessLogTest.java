package dev.offcache.server.http;

import java.io.InputStream;
import java.net.Socket;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The access log over a real server: a known request sequence gives exactly its lines, written when each response
 * completes, a cut stream included; with the logger off nothing is written.
 */
class AccessLogTest
{
    private static final int BLOCK = ServerHarness.BLOCK;

    @TempDir
    Path tmp;

    private final Logger logger = (Logger) LoggerFactory.getLogger(AccessLog.LOGGER);
    private final ListAppender<ILoggingEvent> lines = new ListAppender<>();
    private final HttpClient client = HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(5))
        .build();
    private ServerHarness harness;
    private byte[] hello;

    @BeforeEach
    void setUp() throws Exception
    {
        final Path originDir = Files.createDirectories(tmp.resolve("origin"));
        hello = new byte[1000];
        new Random(7).nextBytes(hello);
        Files.write(originDir.resolve("hello.bin"), hello);
        final byte[] failmid = new byte[3 * BLOCK];
        new Random(8).nextBytes(failmid);
        Files.write(originDir.resolve("failmid.bin"), failmid);
        harness = new ServerHarness(originDir, tmp.resolve("ssd"), 8, 16L * BLOCK, TransportKind.AUTO);
        lines.start();
        logger.addAppender(lines);
    }

    @AfterEach
    void tearDown()
    {
        logger.setLevel(Level.OFF);
        logger.detachAppender(lines);
        harness.close();
    }

    @Test
    void aKnownRequestSequenceGivesExactlyItsLines() throws Exception
    {
        logger.setLevel(Level.INFO);
        assertEquals(206, get("/obj/hello.bin", "bytes=0-99").statusCode());
        awaitLines(1);
        assertArrayEquals(hello, get("/obj/hello.bin", null).body());
        awaitLines(2);
        final HttpResponse<byte[]> missing = get("/obj/missing.bin", null);
        assertEquals(404, missing.statusCode());
        awaitLines(3);
        final HttpResponse<byte[]> unsatisfiable = get("/obj/hello.bin", "bytes=5000-6000");
        assertEquals(416, unsatisfiable.statusCode());
        awaitLines(4);
        final HttpResponse<byte[]> ranges = client.send(request("/ranges/hello.bin")
            .POST(HttpRequest.BodyPublishers.ofString("{\"ranges\":[[0,10],[500,530]]}")).build(),
            HttpResponse.BodyHandlers.ofByteArray());
        assertEquals(200, ranges.statusCode());
        awaitLines(5);
        // block 0 cached by a first read; the whole object then needs blocks 1..2, whose one GET fails after the
        // first block went out: the stream is cut short of its Content-Length
        assertEquals(206, get("/obj/failmid.bin", "bytes=0-9").statusCode());
        awaitLines(6);
        try (Socket socket = new Socket("127.0.0.1", harness.port()))
        {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write(("GET /obj/failmid.bin HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " +
                ServerHarness.KEY + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            final InputStream in = socket.getInputStream();
            final byte[] all = in.readAllBytes();
            assertTrue(all.length < 3 * BLOCK, "cut short");
        }
        awaitLines(7);

        assertEquals(List.of(
            "GET /obj/hello.bin range=0-99 status=206 bytes=100 us=N api=obj client=C",
            "GET /obj/hello.bin range=- status=200 bytes=1000 us=N api=obj client=C",
            "GET /obj/missing.bin range=- status=404 bytes=" + missing.body().length + " us=N api=obj client=C",
            "GET /obj/hello.bin range=5000-6000 status=416 bytes=" + unsatisfiable.body().length +
                " us=N api=obj client=C",
            "POST /ranges/hello.bin range=2 ranges status=200 bytes=40 us=N api=ranges client=C",
            "GET /obj/failmid.bin range=0-9 status=206 bytes=10 us=N api=obj client=C",
            "GET /obj/failmid.bin range=- status=200 bytes=" + BLOCK + " us=N api=obj client=C cut"),
            written().stream().map(AccessLogTest::normalized).toList());
        for (final ILoggingEvent event : written())
        {
            assertEquals(Level.INFO, event.getLevel());
            assertTrue(event.getFormattedMessage().matches(".* us=\\d+ .* client=/127\\.0\\.0\\.1:\\d+.*"),
                event.getFormattedMessage());
        }
    }

    @Test
    void offByDefaultWritesNothing() throws Exception
    {
        assertEquals(Level.OFF, logger.getEffectiveLevel(), "logback-test.xml leaves it off, as the server does");
        assertEquals(206, get("/obj/hello.bin", "bytes=0-99").statusCode());
        assertEquals(404, get("/obj/missing.bin", null).statusCode());
        // a line would have been written before the next request's answer on the same connection
        assertEquals(200, get("/obj/hello.bin", null).statusCode());
        assertEquals(List.of(), written());
    }

    @Test
    void theServersLogbackConfigurationsTurnItOnOnlyWithTheProperty() throws Exception
    {
        for (final String format : List.of("text", "json"))
        {
            assertEquals(Level.OFF, configuredLevel(format, null), format);
            assertEquals(Level.INFO, configuredLevel(format, "INFO"), format);
        }
    }

    private static Level configuredLevel(final String format, final String property) throws Exception
    {
        final LoggerContext context = new LoggerContext();
        if (null != property)
        {
            context.putProperty("offcache.access.level", property);
        }
        final JoranConfigurator configurator = new JoranConfigurator();
        configurator.setContext(context);
        configurator.doConfigure(AccessLogTest.class.getResource("/dev/offcache/server/logback-" + format + ".xml"));
        try
        {
            return context.getLogger(AccessLog.LOGGER).getLevel();
        }
        finally
        {
            context.stop();
        }
    }

    private static String normalized(final ILoggingEvent event)
    {
        return event.getFormattedMessage().replaceAll(" us=\\d+ ", " us=N ").replaceAll(" client=\\S+", " client=C");
    }

    private void awaitLines(final int count) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (written().size() < count && System.nanoTime() < deadline)
        {
            Thread.sleep(5);
        }
        assertEquals(count, written().size(), () -> "lines: " + written());
    }

    /** The lines so far (the appender appends under its own monitor, on the event loops). */
    private List<ILoggingEvent> written()
    {
        synchronized (lines)
        {
            return List.copyOf(lines.list);
        }
    }

    private HttpRequest.Builder request(final String path)
    {
        return harness.request(path);
    }

    private HttpResponse<byte[]> get(final String path, final String range) throws Exception
    {
        return harness.get(client, path, range);
    }
}
