package dev.offcache.server.http;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.offcache.core.counters.CounterTypes;
import dev.offcache.range.metrics.CountersRegion;
import dev.offcache.range.metrics.MetricFamilies;
import dev.offcache.range.testing.Exposition;
import dev.offcache.server.s3.S3ErrorCode;
import dev.offcache.server.s3.S3Operation;
import dev.offcache.server.tier.TierMetrics;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The HTTP counters' bounded endpoint × status table: a status outside the list is counted as {@code other}, every
 * endpoint name the handlers pass is in the table, an update after the first allocates nothing, and the scrape
 * shows only the series that happened.
 */
class HttpMetricsTest
{
    /** {@code respond(ctx, "obj", ...)}, {@code send(ctx, "obj", ...)}, {@code requireMethod(..., "metrics", ...)}. */
    private static final Pattern ENDPOINT_ARGUMENT = Pattern.compile(
        "(?:respond|respondJson|respondNotAllowed|send|stream|validKey)\\(ctx, \"([a-z0-9_]+)\"|" +
        "requireMethod\\(ctx, method, HttpMethod\\.[A-Z]+, \"([a-z0-9_]+)\"|" +
        "private static final String [A-Z]+ = \"(s3_[a-z]+)\"");

    /**
     * The counters a region must hold for the HTTP front and the tiers are exactly the ones they make: with every
     * endpoint x status pair and every S3 error code used, a region of {@code HttpMetrics.COUNTERS} is full, and
     * {@code TierMetrics.COUNTERS} are all the tiers' (the scalars were once counted by hand, one too many).
     */
    @Test
    void theCountersNeededAreExactlyTheCountersMade()
    {
        try (CountersRegion region = CountersRegion.open(null, CounterTypes.L2_SERVER, HttpMetrics.COUNTERS))
        {
            final HttpMetrics metrics = new HttpMetrics(region);
            for (final String endpoint : HttpMetrics.ENDPOINTS)
            {
                for (final int status : HttpMetrics.STATUSES)
                {
                    metrics.request(endpoint, status);
                }
                metrics.request(endpoint, 599);
            }
            for (final S3ErrorCode code : S3ErrorCode.values())
            {
                metrics.s3Error(code);
            }
            assertEquals(HttpMetrics.COUNTERS, region.snapshot().size(), "counters made in a region of COUNTERS");
        }
        try (CountersRegion region = CountersRegion.open(null, CounterTypes.L2_SERVER, TierMetrics.COUNTERS))
        {
            new TierMetrics(region);
            assertEquals(TierMetrics.COUNTERS, region.snapshot().size());
        }
    }

    @Test
    void aStatusOutsideTheListIsCountedAsOther()
    {
        try (HttpMetrics metrics = new HttpMetrics())
        {
            metrics.request("obj", 206);
            metrics.request("obj", 418);
            metrics.request("obj", 599);
            metrics.request("obj", 42);
            final MetricFamilies out = new MetricFamilies();
            metrics.collectInto(out, new MemoryBudget(1 << 20, 4096));
            final Exposition scrape = Exposition.parse(out.toText());
            assertEquals(1, scrape.value("offcache_server_http_requests_total", "endpoint", "obj", "status", "206"));
            assertEquals(3, scrape.value("offcache_server_http_requests_total", "endpoint", "obj", "status",
                HttpMetrics.OTHER_STATUS));
            assertEquals(3, metrics.requests("obj", 418), "any unlisted code reads the other count");
            assertEquals(2, scrape.samples().stream()
                .filter((s) -> s.name().equals("offcache_server_http_requests_total")).count(),
                "only the series that happened: " + scrape.samples());
        }
    }

    @Test
    void everyEndpointTheHandlersNameIsInTheTable() throws Exception
    {
        final Set<String> named = new TreeSet<>();
        for (final String source : new String[] {"RequestHandler.java", "S3Front.java"})
        {
            final Matcher matcher = ENDPOINT_ARGUMENT.matcher(
                Files.readString(Path.of("src/main/java/dev/offcache/server/http", source)));
            while (matcher.find())
            {
                for (int group = 1; group <= matcher.groupCount(); group++)
                {
                    if (null != matcher.group(group))
                    {
                        named.add(matcher.group(group));
                    }
                }
            }
        }
        assertTrue(named.containsAll(Set.of("obj", "ranges", "prefetch", "metrics", "s3_auth")), named.toString());
        for (final String endpoint : named)
        {
            assertTrue(HttpMetrics.ENDPOINTS.contains(endpoint), endpoint + " is not in HttpMetrics.ENDPOINTS");
        }
        for (final S3Operation operation : S3Operation.values())
        {
            assertEquals("s3_" + operation.apiName(), HttpMetrics.s3Endpoint(operation));
            assertTrue(HttpMetrics.ENDPOINTS.contains(HttpMetrics.s3Endpoint(operation)));
        }
    }

    /** After a pair's first response, counting allocates nothing on the counting thread. */
    @Test
    void countingAfterFirstUseAllocatesNothing()
    {
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        try (HttpMetrics metrics = new HttpMetrics())
        {
            final String[] endpoints = {"obj", "ranges", HttpMetrics.s3Endpoint(S3Operation.GET_OBJECT)};
            final int[] statuses = {200, 206, 404, 418};
            for (int i = 0; i < 20_000; i++)
            {
                metrics.request(endpoints[i % 3], statuses[i % 4]);
                metrics.s3Error(S3ErrorCode.NO_SUCH_KEY);
                metrics.responseBytes.getAndAdd(100);
            }
            final long thread = Thread.currentThread().getId();
            final long before = threads.getThreadAllocatedBytes(thread);
            for (int i = 0; i < 100_000; i++)
            {
                metrics.request(endpoints[i % 3], statuses[i % 4]);
                metrics.s3Error(S3ErrorCode.NO_SUCH_KEY);
                metrics.responseBytes.getAndAdd(100);
            }
            final long allocated = threads.getThreadAllocatedBytes(thread) - before;
            // the allocation counter itself may report a few bytes of noise; 100 000 updates allocating would be MBs
            assertTrue(allocated < 4096, allocated + " bytes allocated by 300 000 counter updates");
            assertEquals((20_000 + 11) / 12 + (100_000 + 11) / 12, metrics.requests("obj", 200), "obj/200: every 12th");
        }
    }
}
