package dev.offcache.range.origin;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The HTTP origin against a real HTTP server on 127.0.0.1 (the JDK's), which serves, stores and deletes objects
 * and honours single byte ranges and If-Match the way object stores do.
 */
class HttpOriginTest extends ObjectStoreContract
{
    private static final Pattern RANGE = Pattern.compile("bytes=(\\d+)-(\\d+)");

    private final Map<String, byte[]> objects = new ConcurrentHashMap<>();
    private HttpServer server;
    private ExecutorService threads;

    @Override
    protected void startServer() throws IOException
    {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        threads = Executors.newFixedThreadPool(4);
        server.setExecutor(threads);
        server.createContext("/objects/", this::handle);
        server.createContext("/norange/", this::ignoreRange);
        server.start();
    }

    @Override
    protected ObjectStore newOrigin()
    {
        return new HttpOrigin(URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/objects"),
            Duration.ofSeconds(10));
    }

    @Override
    protected void stopServer()
    {
        server.stop(0);
        threads.shutdownNow();
    }

    @Override
    protected boolean canList()
    {
        return false;
    }

    @Override
    protected boolean hasTimes()
    {
        return false;
    }

    @Test
    void statReadsTheHttpDateOfLastModified() throws Exception
    {
        objects.put("dated", random(10, 11));
        final ObjectInfo info = get(origin.stat("dated"));
        assertEquals(784111777000L, info.lastModifiedMillis());
        assertEquals(10, info.size());
    }

    @Test
    void aServerThatIgnoresRangeIsAnErrorUnlessTheRangeStartsAtZero() throws Exception
    {
        objects.put("whole", random(1000, 9));
        try (HttpOrigin sloppy = new HttpOrigin(
            URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/norange/"), Duration.ofSeconds(10)))
        {
            final Throwable error = failure(sloppy.read("whole", 10, ByteBuffer.allocateDirect(100)));
            assertTrue(error.getMessage().contains("ignored the Range"), error.getMessage());
            final ByteBuffer head = ByteBuffer.allocateDirect(100);
            assertEquals(100, get(sloppy.read("whole", 0, head)));
            final byte[] got = new byte[100];
            head.get(got);
            assertArrayEquals(Arrays.copyOf(objects.get("whole"), 100), got);
        }
    }

    private void ignoreRange(final HttpExchange exchange) throws IOException
    {
        try (exchange)
        {
            final byte[] data = objects.get(exchange.getRequestURI().getPath().substring("/norange/".length()));
            exchange.sendResponseHeaders(200, data.length);
            try (OutputStream body = exchange.getResponseBody())
            {
                body.write(data);
            }
        }
    }

    private void handle(final HttpExchange exchange) throws IOException
    {
        try (exchange)
        {
            final String key = exchange.getRequestURI().getPath().substring("/objects/".length());
            switch (exchange.getRequestMethod())
            {
                case "PUT":
                    objects.put(key, exchange.getRequestBody().readAllBytes());
                    exchange.sendResponseHeaders(200, -1);
                    return;
                case "DELETE":
                    exchange.sendResponseHeaders(objects.remove(key) != null ? 204 : 404, -1);
                    return;
                case "HEAD":
                case "GET":
                    serve(exchange, key);
                    return;
                default:
                    exchange.sendResponseHeaders(405, -1);
            }
        }
    }

    private void serve(final HttpExchange exchange, final String key) throws IOException
    {
        final byte[] data = objects.get(key);
        if (data == null)
        {
            exchange.sendResponseHeaders(404, -1);
            return;
        }
        final String etag = "\"" + Integer.toHexString(Arrays.hashCode(data)) + "\"";
        exchange.getResponseHeaders().set("ETag", etag);
        exchange.getResponseHeaders().set("Last-Modified", "Sun, 06 Nov 1994 08:49:37 GMT");
        final String ifMatch = exchange.getRequestHeaders().getFirst("If-Match");
        if (ifMatch != null && !ifMatch.equals(etag))
        {
            exchange.sendResponseHeaders(412, -1);
            return;
        }
        if (exchange.getRequestMethod().equals("HEAD"))
        {
            exchange.getResponseHeaders().set("Content-Length", Integer.toString(data.length));
            exchange.sendResponseHeaders(200, -1);
            return;
        }
        final String range = exchange.getRequestHeaders().getFirst("Range");
        int start = 0;
        int end = data.length - 1;
        int status = 200;
        if (range != null)
        {
            final Matcher matcher = RANGE.matcher(range);
            if (!matcher.matches())
            {
                exchange.sendResponseHeaders(400, -1);
                return;
            }
            start = Integer.parseInt(matcher.group(1));
            end = Math.min(Integer.parseInt(matcher.group(2)), data.length - 1);
            if (start >= data.length)
            {
                exchange.sendResponseHeaders(416, -1);
                return;
            }
            status = 206;
            exchange.getResponseHeaders().set("Content-Range", "bytes " + start + "-" + end + "/" + data.length);
        }
        exchange.sendResponseHeaders(status, end - start + 1);
        try (OutputStream body = exchange.getResponseBody())
        {
            body.write(data, start, end - start + 1);
        }
    }
}
