package dev.offcache.range.testing;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.LongConsumer;
import java.util.function.Predicate;

import dev.offcache.range.store.FetchClass;
import dev.offcache.range.origin.BlockForwardingObjectStore;
import dev.offcache.range.origin.BlockProgress;
import dev.offcache.range.origin.ObjectInfo;
import dev.offcache.range.origin.ObjectStore;
import dev.offcache.range.origin.OriginException;

/**
 * Wraps a real origin and counts what reaches it: GETs (with their ranges), HEADs, GETs running at once and the
 * peak. Tests can gate GETs or HEADs (hold them until released) and inject faults: throw (the next n GETs, or
 * every GET or HEAD matching a rule), return short data, or report an absurd size. With {@link #tellsSize} its GET
 * answers carry the object's size, as an S3 or HTTP origin's do; without it they say nothing, so an engine asks with
 * a HEAD first. Shared by the range-cache and cache-server tests.
 */
public final class CountingOrigin extends BlockForwardingObjectStore
{
    public record Get(String key, long offset, int length)
    {
    }

    private final AtomicInteger gets = new AtomicInteger();
    private final AtomicInteger heads = new AtomicInteger();
    private final AtomicInteger running = new AtomicInteger();
    private final AtomicInteger peak = new AtomicInteger();
    private final AtomicLong bytesRequested = new AtomicLong();
    private final AtomicLong peakBytesInFlight = new AtomicLong();
    private final AtomicLong bytesInFlight = new AtomicLong();
    private final ConcurrentLinkedQueue<Get> log = new ConcurrentLinkedQueue<>();
    private volatile CompletableFuture<Void> getGate;
    private volatile Predicate<String> gatedKeys = (key) -> true;
    private volatile CompletableFuture<Void> headGate;
    private final AtomicInteger failNextGets = new AtomicInteger();
    private final AtomicInteger shortNextGets = new AtomicInteger();
    private volatile long fakeSize = -1;
    private volatile Predicate<Get> failingGets = (get) -> false;
    private volatile Predicate<String> failingSizes = (key) -> false;
    private volatile boolean tellsSize;

    public CountingOrigin(final ObjectStore delegate)
    {
        super(delegate);
    }

    public int gets()
    {
        return gets.get();
    }

    public int heads()
    {
        return heads.get();
    }

    public int running()
    {
        return running.get();
    }

    /** Bytes every GET so far asked for (not reset by {@link #reset}). */
    public long bytesRequested()
    {
        return bytesRequested.get();
    }

    public int peakRunning()
    {
        return peak.get();
    }

    public long peakBytesInFlight()
    {
        return peakBytesInFlight.get();
    }

    public List<Get> log()
    {
        return List.copyOf(log);
    }

    public void reset()
    {
        gets.set(0);
        heads.set(0);
        peak.set(0);
        log.clear();
    }

    /** Holds every GET of a key matching {@code keys} until the returned future completes. */
    public CompletableFuture<Void> gateGets(final Predicate<String> keys)
    {
        final CompletableFuture<Void> gate = new CompletableFuture<>();
        gatedKeys = keys;
        getGate = gate;
        return gate;
    }

    public void ungateGets()
    {
        final CompletableFuture<Void> gate = getGate;
        getGate = null;
        if (gate != null)
        {
            gate.complete(null);
        }
    }

    public CompletableFuture<Void> gateHeads()
    {
        final CompletableFuture<Void> gate = new CompletableFuture<>();
        headGate = gate;
        return gate;
    }

    public void failNextGets(final int n)
    {
        failNextGets.set(n);
    }

    public void shortNextGets(final int n)
    {
        shortNextGets.set(n);
    }

    public void fakeSize(final long size)
    {
        fakeSize = size;
    }

    /** Fails every GET the rule matches, from now on (its range as asked). */
    public void failGetsMatching(final Predicate<Get> rule)
    {
        failingGets = rule;
    }

    /** Fails every size lookup ({@link #size}, {@link #stat}) of a key the rule matches, from now on. */
    public void failSizesOf(final Predicate<String> rule)
    {
        failingSizes = rule;
    }

    /** Whether GET answers carry the object's size from now on ({@link ObjectStore#readAnswersCarrySize}). */
    public void tellsSize(final boolean tells)
    {
        tellsSize = tells;
    }

    @Override
    public boolean readAnswersCarrySize()
    {
        return tellsSize;
    }

    @Override
    public String namespace()
    {
        return "counting+" + delegate().namespace();
    }

    @Override
    public CompletableFuture<Long> size(final String key)
    {
        heads.incrementAndGet();
        if (failingSizes.test(key))
        {
            return CompletableFuture.failedFuture(new OriginException("injected HEAD failure of '" + key + "'"));
        }
        final CompletableFuture<Void> gate = headGate;
        final CompletableFuture<Void> before = gate == null ? CompletableFuture.completedFuture(null) : gate;
        return before.thenCompose((v) -> fakeSize >= 0 ?
            CompletableFuture.completedFuture(fakeSize) : delegate().size(key));
    }

    /** A stat is a HEAD too: counted, gated, and faked with {@link #fakeSize} like {@link #size}. */
    @Override
    public CompletableFuture<ObjectInfo> stat(final String key)
    {
        heads.incrementAndGet();
        if (failingSizes.test(key))
        {
            return CompletableFuture.failedFuture(new OriginException("injected HEAD failure of '" + key + "'"));
        }
        final CompletableFuture<Void> gate = headGate;
        final CompletableFuture<Void> before = gate == null ? CompletableFuture.completedFuture(null) : gate;
        return before.thenCompose((v) -> fakeSize >= 0 ?
            CompletableFuture.completedFuture(new ObjectInfo(key, fakeSize, ObjectInfo.UNKNOWN_TIME, null)) :
            delegate().stat(key));
    }

    @Override
    public CompletableFuture<Integer> read(
        final String key, final long offset, final ByteBuffer destination, final FetchClass fetchClass,
        final LongConsumer objectSize)
    {
        return counted(key, offset, destination, fetchClass, tellsSize ? objectSize : null);
    }

    /** The delegate's reads into block buffers, counted as one GET each, with the same gates and faults. */
    @Override
    public CompletableFuture<Integer> readBlocks(
        final String key, final long offset, final ByteBuffer[] destinations, final FetchClass fetchClass,
        final LongConsumer objectSize, final BlockProgress progress)
    {
        int length = 0;
        for (final ByteBuffer destination : destinations)
        {
            length += destination.remaining();
        }
        return counted(key, offset, length, (shorten) ->
        {
            final ByteBuffer[] targets = destinations.clone();
            if (shorten && targets.length > 0)
            {
                final ByteBuffer last = targets[targets.length - 1].duplicate();
                last.limit(last.limit() - Math.min(1, last.remaining()));
                targets[targets.length - 1] = last;
            }
            return delegate().readBlocks(key, offset, targets, fetchClass, tellsSize ? objectSize : null, progress);
        });
    }

    private CompletableFuture<Integer> counted(
        final String key, final long offset, final ByteBuffer destination, final FetchClass fetchClass,
        final LongConsumer objectSize)
    {
        final int length = destination.remaining();
        return counted(key, offset, length, (shorten) ->
        {
            if (shorten)
            {
                final ByteBuffer shorter = destination.duplicate();
                shorter.limit(shorter.position() + Math.max(0, length - 1));
                return delegate().read(key, offset, shorter);
            }
            return null == objectSize ? delegate().read(key, offset, destination) :
                delegate().read(key, offset, destination, fetchClass, objectSize);
        });
    }

    private CompletableFuture<Integer> counted(
        final String key, final long offset, final int length,
        final Function<Boolean, CompletableFuture<Integer>> reader)
    {
        gets.incrementAndGet();
        final Get get = new Get(key, offset, length);
        log.add(get);
        bytesRequested.addAndGet(length);
        final int now = running.incrementAndGet();
        peak.accumulateAndGet(now, Math::max);
        final long inFlight = bytesInFlight.addAndGet(length);
        peakBytesInFlight.accumulateAndGet(inFlight, Math::max);
        final CompletableFuture<Void> gate = getGate;
        final CompletableFuture<Void> before = gate != null && gatedKeys.test(key) ?
            gate : CompletableFuture.completedFuture(null);
        final CompletableFuture<Integer> result = before.thenCompose((v) ->
        {
            if (failingGets.test(get))
            {
                return CompletableFuture.failedFuture(new OriginException("injected origin failure of '" + key + "'"));
            }
            if (failNextGets.getAndUpdate((n) -> Math.max(0, n - 1)) > 0)
            {
                return CompletableFuture.failedFuture(new OriginException("injected GET failure for '" + key + "'"));
            }
            return reader.apply(shortNextGets.getAndUpdate((n) -> Math.max(0, n - 1)) > 0);
        });
        return result.whenComplete((n, t) ->
        {
            running.decrementAndGet();
            bytesInFlight.addAndGet(-length);
        });
    }
}
