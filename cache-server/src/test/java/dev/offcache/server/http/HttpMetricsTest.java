package dev.offcache.server.http;

import java.lang.management.ManagementFactory;
import java.util.Set;

import dev.offcache.core.counters.CounterTypes;
import dev.offcache.range.metrics.CountersRegion;
import dev.offcache.range.metrics.MetricFamilies;
import dev.offcache.range.testing.Exposition;
import dev.offcache.server.s3.S3ErrorCode;
import dev.offcache.server.s3.S3Operation;
import dev.offcache.server.tier.TierCounters;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The HTTP counters' bounded endpoint × status table: a status outside the list is counted as {@code other}, every
 * endpoint name the handlers pass is in the table, an update after the first allocates nothing, and the scrape
 * shows only the series that happened.
 */
class HttpMetricsTest
{
    /** {@code respond(ctx, "obj", ...)}, {@code send(ctx, "obj", ...)}, {@code requireMethod(..., "metrics", ...)}. */
    /**
     * The counters a region must hold for the HTTP front and the tiers are exactly the ones they make: with every
     * endpoint x status pair and every S3 error code used, a region of {@code HttpMetrics.COUNTERS} is full, and
     * {@code TierCounters.COUNTERS} are all the tiers' (the scalars were once counted by hand, one too many).
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
        try (CountersRegion region = CountersRegion.open(null, CounterTypes.L2_SERVER, TierCounters.COUNTERS))
        {
            new TierCounters(region);
            assertEquals(TierCounters.COUNTERS, region.snapshot().size());
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

    /**
     * The handlers pass {@link Endpoint}s (a misspelt one does not compile): every endpoint is in the table at its own
     * row under its label, and a label that is no endpoint's is refused instead of counted as {@code other}.
     */
    @Test
    void everyEndpointIsInTheTableAndAnUnknownLabelIsRefused()
    {
        assertEquals(Endpoint.all().size(), HttpMetrics.ENDPOINTS.size());
        for (final Endpoint endpoint : Endpoint.all())
        {
            assertEquals(endpoint.label(), HttpMetrics.ENDPOINTS.get(endpoint.row()));
            assertSame(endpoint, Endpoint.named(endpoint.label()));
        }
        assertTrue(HttpMetrics.ENDPOINTS.containsAll(Set.of("obj", "ranges", "prefetch", "metrics", "s3_auth")));
        try (HttpMetrics metrics = new HttpMetrics())
        {
            assertThrows(IllegalArgumentException.class, () -> metrics.request("objj", 200));
            assertThrows(IllegalArgumentException.class, () -> metrics.requests("objj", 200));
            metrics.request(Endpoint.OBJ, 200);
            assertEquals(1, metrics.requests("obj", 200));
            assertEquals(0, metrics.requests("other", 200));
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
            final Endpoint[] endpoints = {Endpoint.OBJ, Endpoint.RANGES, Endpoint.s3(S3Operation.GET_OBJECT)};
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
