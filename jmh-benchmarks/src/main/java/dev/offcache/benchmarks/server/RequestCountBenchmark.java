package dev.offcache.benchmarks.server;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.LongAdder;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;

import dev.offcache.server.http.Endpoint;
import dev.offcache.server.http.HttpMetrics;

/**
 * Counting one response by endpoint and status, two threads at once on the same few pairs (two event loops serving
 * the same traffic): the server's bounded table of Agrona counters ({@link HttpMetrics#request}: the endpoint
 * carries its row, so one table read and one atomic add) beside the LongAdder table it replaced (a concurrent map of
 * per-status arrays of LongAdders, striped under contention). Run with {@code -prof gc}: neither allocates once
 * every pair has been counted.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Threads(2)
public class RequestCountBenchmark
{
    private static final String[] ENDPOINTS = {"obj", "ranges", "s3_GetObject"};
    /** The same endpoints as the server passes them. */
    private static final Endpoint[] SERVER_ENDPOINTS = {Endpoint.OBJ, Endpoint.RANGES, Endpoint.named("s3_GetObject")};
    private static final int[] STATUSES = {200, 206, 206, 404};

    private HttpMetrics metrics;
    private final LongAdderTable adders = new LongAdderTable();

    /** Each thread's position in the pairs. */
    @State(Scope.Thread)
    public static class Cursor
    {
        int next;
    }

    /** The LongAdder table of the server before its counters moved to Agrona counters. */
    static final class LongAdderTable
    {
        private static final int STATUS_SLOTS = 600;
        private final ConcurrentHashMap<String, AtomicReferenceArray<LongAdder>> requests =
            new ConcurrentHashMap<>();

        void request(final String endpoint, final int status)
        {
            AtomicReferenceArray<LongAdder> byStatus = requests.get(endpoint);
            if (null == byStatus)
            {
                byStatus = requests.computeIfAbsent(endpoint, (k) -> new AtomicReferenceArray<>(STATUS_SLOTS));
            }
            final int slot = status >= 100 && status < STATUS_SLOTS ? status : 0;
            LongAdder adder = byStatus.get(slot);
            if (null == adder)
            {
                byStatus.compareAndSet(slot, null, new LongAdder());
                adder = byStatus.get(slot);
            }
            adder.increment();
        }
    }

    /** Makes the server's counters (in a private region). */
    @Setup(Level.Trial)
    public void setUp()
    {
        metrics = new HttpMetrics();
    }

    /** Frees the region. */
    @TearDown(Level.Trial)
    public void tearDown()
    {
        metrics.close();
    }

    /**
     * The server's counting.
     *
     * @param cursor this thread's position.
     */
    @Benchmark
    public void oursAgronaCounterTable(final Cursor cursor)
    {
        final int i = cursor.next++;
        metrics.request(SERVER_ENDPOINTS[i % SERVER_ENDPOINTS.length], STATUSES[i & 3]);
    }

    /**
     * The LongAdder table it replaced.
     *
     * @param cursor this thread's position.
     */
    @Benchmark
    public void baselineLongAdderTable(final Cursor cursor)
    {
        final int i = cursor.next++;
        adders.request(ENDPOINTS[i % ENDPOINTS.length], STATUSES[i & 3]);
    }
}
