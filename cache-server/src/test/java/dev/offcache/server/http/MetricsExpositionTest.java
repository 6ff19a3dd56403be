package dev.offcache.server.http;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

import dev.offcache.range.testing.DocsPages;
import dev.offcache.range.testing.Exposition;
import dev.offcache.server.metrics.BuildInfo;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code /metrics} as the Prometheus client writes it, read as a scraper would: every family has HELP and TYPE,
 * latencies are histograms whose {@code +Inf} bucket equals the requests served, counters count each request once,
 * and the build, JVM and process families are there beside the server's, the store's and the engine's.
 */
class MetricsExpositionTest
{
    private static final int BLOCK = ServerHarness.BLOCK;
    private static final Pattern SERVER_NAME = Pattern.compile("offcache_server_[a-z0-9_]*");

    @TempDir
    Path tmp;

    private ServerHarness harness;
    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @BeforeEach
    void start() throws Exception
    {
        final Path origin = Files.createDirectories(tmp.resolve("origin"));
        final byte[] object = new byte[4 * BLOCK];
        new Random(3).nextBytes(object);
        Files.write(origin.resolve("data.bin"), object);
        harness = new ServerHarness(origin, tmp.resolve("ssd"), 16, 16L * BLOCK, TransportKind.AUTO);
    }

    @AfterEach
    void stop()
    {
        harness.close();
    }

    private HttpResponse<String> get(final String path, final String range) throws Exception
    {
        final HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(harness.base() + path))
            .header("Authorization", "Bearer " + ServerHarness.KEY);
        if (null != range)
        {
            request.header("Range", range);
        }
        return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    /**
     * The server's own families (its HTTP front and tiers, and {@code offcache_build_info}) are each named in
     * {@code docs/}, and every {@code offcache_server_*} name in {@code docs/} is one the server exports (a name
     * ending in {@code _} or {@code *} is a prefix; the S3 API's error counter appears once the S3 API is on).
     */
    @Test
    void everyServerFamilyIsDocumentedAndEveryDocumentedServerNameIsExported() throws Exception
    {
        assertEquals(206, get("/obj/data.bin", "bytes=0-99").statusCode());
        final Set<String> exported = new TreeSet<>();
        for (final String family : Exposition.parse(get("/metrics", null).body()).types().keySet())
        {
            if (family.startsWith("offcache_server_") || family.startsWith("offcache_build_"))
            {
                exported.add(family);
            }
        }
        exported.add("offcache_server_s3_errors_total");
        final String docs = DocsPages.all();
        assertEquals(Set.of(), DocsPages.undocumented(exported, docs), "exported, but not named in docs/");
        assertEquals(Set.of(), DocsPages.notExported(SERVER_NAME, exported, docs), "named in docs/, but not exported");
    }

    @Test
    void everyFamilyHasHelpAndLatenciesAreHistogramsCountedOnce() throws Exception
    {
        final int reads = 7;
        for (int i = 0; i < reads; i++)
        {
            assertEquals(206, get("/obj/data.bin", "bytes=" + (i % 4) * BLOCK + "-" + ((i % 4) * BLOCK + 99))
                .statusCode());
        }
        final HttpResponse<String> response = get("/metrics", null);
        assertEquals(200, response.statusCode());
        assertTrue(response.headers().firstValue("Content-Type").orElse("").startsWith("text/plain; version=0.0.4"));
        final String page = response.body();
        final Exposition scrape = Exposition.parse(page);
        final Set<String> typed = scrape.types().keySet();
        assertEquals(typed, scrape.helps().keySet(), "every family has HELP");
        for (final String family : new String[] {"offcache_build_info", "offcache_server_http_requests_total",
            "offcache_server_block_lookups_total", "offcache_range_block_requests_total",
            "offcache_range_origin_gets_total", "offcache_server_http_response_seconds",
            "offcache_range_origin_get_seconds", "jvm_memory_used_bytes", "jvm_threads_current",
            "process_cpu_seconds_total"})
        {
            assertTrue(typed.contains(family), () -> family + " missing from\n" + page);
        }
        assertTrue(page.contains("# TYPE offcache_server_http_response_seconds histogram"), page);
        assertTrue(page.contains("offcache_build_info{java_version=\"" + System.getProperty("java.version") +
            "\",version=\"" + BuildInfo.VERSION + "\"} 1"), page);
        assertNotEquals("unknown", BuildInfo.VERSION, "the build filters the version in");

        // each read counted once, in the counter and in the histogram (the scrape itself is still in flight)
        assertEquals(reads,
            scrape.value("offcache_server_http_requests_total", "endpoint", "obj", "status", "206"));
        assertEquals(reads, scrape.value("offcache_server_http_response_seconds_count"));
        assertEquals(reads, scrape.value("offcache_server_http_response_seconds_bucket", "le", "+Inf"));
        assertEquals(reads, scrape.value("offcache_range_block_requests_total"));
        // 4 blocks, each fetched once; the other 3 reads hit, 100 bytes each from the store
        assertEquals(4, scrape.value("offcache_range_origin_gets_total", "class", "demand"));
        assertEquals(4, scrape.value("offcache_range_origin_get_seconds_count"));
        assertEquals(3, scrape.value("offcache_range_block_hits_total"));
        assertEquals(4, scrape.value("offcache_range_block_misses_total"));
        assertEquals(300, scrape.value("offcache_range_store_bytes_total"));
        assertEquals(3, scrape.value("offcache_server_block_lookups_total", "result", "ram_hit"));
        assertEquals(4, scrape.value("offcache_server_block_lookups_total", "result", "miss"));
        assertEquals(4.0 * BLOCK, scrape.value("offcache_range_origin_bytes_total", "class", "demand"));
    }
}
