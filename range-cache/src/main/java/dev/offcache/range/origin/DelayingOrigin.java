package dev.offcache.range.origin;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;

import dev.offcache.range.store.FetchClass;

/**
 * An origin with a fixed latency in front of every GET and HEAD, as an object store's time to first byte: the
 * request is sent to the wrapped origin only after {@code latency}, so concurrent requests overlap their waits
 * the way they do over a network. For benchmarks and tests of the miss path (a local directory answers in
 * microseconds; S3 in tens of milliseconds). Counts the GETs and HEADs that reach it, and the most GETs in flight at
 * once.
 *
 * <p>Memory and ownership: owns the wrapped origin (closed with it); holds no buffers.
 */
public final class DelayingOrigin extends BlockForwardingObjectStore
{
    private final long latencyNanos;
    private final Executor delayed;
    private final AtomicLong gets = new AtomicLong();
    private final AtomicLong heads = new AtomicLong();
    private final AtomicLong getsInFlight = new AtomicLong();
    private final AtomicLong peakGetsInFlight = new AtomicLong();

    /**
     * Wraps an origin.
     *
     * @param delegate     the origin behind the latency; owned.
     * @param latencyNanos the wait before each GET and HEAD, at least 0.
     */
    public DelayingOrigin(final ObjectStore delegate, final long latencyNanos)
    {
        super(delegate);
        if (latencyNanos < 0)
        {
            throw new IllegalArgumentException("latency must be >= 0: " + latencyNanos);
        }
        this.latencyNanos = latencyNanos;
        this.delayed = CompletableFuture.delayedExecutor(latencyNanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public CompletableFuture<Long> size(final String key)
    {
        heads.incrementAndGet();
        return later().thenCompose((ignored) -> delegate().size(key));
    }

    /** The wrapped origin's reads, with the size its answers carry passed on. */
    @Override
    public CompletableFuture<Integer> read(
        final String key, final long offset, final ByteBuffer destination, final FetchClass fetchClass,
        final LongConsumer objectSize)
    {
        gets.incrementAndGet();
        peakGetsInFlight.accumulateAndGet(getsInFlight.incrementAndGet(), Math::max);
        return later().thenCompose((ignored) -> delegate().read(key, offset, destination, fetchClass, objectSize))
            .whenComplete((bytes, error) -> getsInFlight.decrementAndGet());
    }

    /** The wrapped origin's reads into block buffers, after the latency: one GET, counted as one. */
    @Override
    public CompletableFuture<Integer> readBlocks(
        final String key, final long offset, final ByteBuffer[] destinations, final FetchClass fetchClass,
        final LongConsumer objectSize, final BlockProgress progress)
    {
        gets.incrementAndGet();
        peakGetsInFlight.accumulateAndGet(getsInFlight.incrementAndGet(), Math::max);
        return later().thenCompose((ignored) ->
                delegate().readBlocks(key, offset, destinations, fetchClass, objectSize, progress))
            .whenComplete((bytes, error) -> getsInFlight.decrementAndGet());
    }

    /**
     * Returns the most GETs that were in flight (waiting out the latency or reading) at once.
     *
     * @return the peak.
     */
    public long peakGetsInFlight()
    {
        return peakGetsInFlight.get();
    }

    /**
     * Returns the GETs received.
     *
     * @return the count.
     */
    public long gets()
    {
        return gets.get();
    }

    /**
     * Returns the HEADs received.
     *
     * @return the count.
     */
    public long heads()
    {
        return heads.get();
    }

    /**
     * Returns the latency in front of each request.
     *
     * @return nanoseconds.
     */
    public long latencyNanos()
    {
        return latencyNanos;
    }

    private CompletableFuture<Void> later()
    {
        return latencyNanos == 0 ? CompletableFuture.completedFuture(null) :
            CompletableFuture.runAsync(() ->
            {
            }, delayed);
    }
}
