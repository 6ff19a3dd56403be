package dev.offcache.embed;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import java.util.function.LongConsumer;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

import dev.offcache.core.async.Futures;
import dev.offcache.range.fetch.FetchRun;
import dev.offcache.range.l2.L2Client;
import dev.offcache.range.l2.L2ClientContext;
import dev.offcache.range.l2.shard.ShardedL2Client;
import dev.offcache.range.l2.shard.ShardedL2Context;
import dev.offcache.range.metrics.ReadStatistics;
import dev.offcache.range.origin.ForwardingObjectStore;
import dev.offcache.range.origin.ObjectStore;
import dev.offcache.range.store.FetchClass;

/**
 * The origin of a shared cache that has L2 servers ({@link L2Settings}): an L1 miss of a file under an L2 root is
 * read from the L2 server(s) as the server's object (the file's path relative to the root), everything else from
 * the adapter's own source ({@link OriginRouter}). Any L2 failure, from a refused connection to a bad answer, reads
 * the bytes from the source instead: L2 lowers the hit rate when it is broken, never fails a read.
 *
 * <p>L2 servers assume write-once objects, while an adapter key carries the file's version. What can be checked is
 * checked, on every answer and without a {@code HEAD}: the object size each L2 answer reports (its
 * {@code Content-Range}, see {@link ObjectStore#readsReportSize()}) must equal the length in the adapter's key, and
 * the answer must be as long as the adapter expects; a mismatch (the file was rewritten with another length behind a
 * server that still holds the old one) discards the answer's bytes, sends that file to the source from then on and
 * is counted. A file rewritten in place with the same length cannot be told apart: L2 roots
 * must hold write-once files (table formats' data files are).
 *
 * <p>The L2 client ({@link L2Client}, or {@link ShardedL2Client} for several servers) is given an origin that
 * always fails, so every one of its fallbacks comes back here and is served under the adapter's key (the client's
 * own fallback would read by the server's key, which names no version). Whatever the client throws ({@link Error}s
 * and sneaky-thrown checked exceptions included) is a fallback to the source, and whatever the source throws fails
 * the returned future: no read is left waiting. An L2 hit of the engine's fetch, and each of its fallbacks, size
 * mismatches and unverified reads, is also counted in the {@link ReadStatistics} of the read that sent it
 * ({@link FetchRun#statistics()}), so each adapter stream knows its own. Ownership: the bridge owns the L2 client
 * and the router, and closes both.
 */
public final class L2Bridge extends ForwardingObjectStore
{
    private static final int MAX_REMEMBERED_FILES = 100_000;

    private final OriginRouter router;
    private final L2Settings settings;
    private final ObjectStore client;
    /** Files whose L2 object differed from the adapter's file, remembered (bounded) so they skip L2. */
    private final Cache<String, Boolean> refused;
    private final AtomicLong reads = new AtomicLong();
    private final AtomicLong hits = new AtomicLong();
    private final AtomicLong bytes = new AtomicLong();
    private final AtomicLong fallbacks = new AtomicLong();
    private final AtomicLong sizeMismatches = new AtomicLong();
    private final AtomicLong unverified = new AtomicLong();
    private final AtomicLong unmapped = new AtomicLong();

    /**
     * A bridge over a router, with an L2 client made from the settings.
     *
     * @param router   where misses outside L2, and every L2 failure, are read; owned by the bridge.
     * @param settings the servers and roots ({@link L2Settings#enabled()}).
     */
    public L2Bridge(final OriginRouter router, final L2Settings settings)
    {
        this(router, settings, newClient(settings));
    }

    L2Bridge(final OriginRouter router, final L2Settings settings, final ObjectStore client)
    {
        super(router);
        this.router = router;
        this.settings = settings;
        this.client = client;
        this.refused = Caffeine.newBuilder().maximumSize(MAX_REMEMBERED_FILES).build();
    }

    private static ObjectStore newClient(final L2Settings settings)
    {
        if (!settings.enabled())
        {
            throw new IllegalArgumentException("no L2 servers in " + settings);
        }
        final Duration abandon = Duration.ofMillis(settings.abandonTimeoutMs());
        final Duration stall = Duration.ofMillis(settings.stallTimeoutMs());
        if (settings.servers().size() == 1)
        {
            return new L2Client(new L2ClientContext()
                .serverUri(settings.servers().get(0))
                .apiKey(settings.apiKey())
                .origin(NotFromL2.ORIGIN)
                .abandonTimeout(abandon)
                .stallTimeout(stall));
        }
        return new ShardedL2Client(new ShardedL2Context()
            .servers(settings.servers())
            .apiKey(settings.apiKey())
            .origin(NotFromL2.ORIGIN)
            .client((client) -> client.abandonTimeout(abandon).stallTimeout(stall)));
    }

    /**
     * Returns the L2 client: an {@link L2Client}, or a {@link ShardedL2Client} for several servers (its metrics
     * count every L2 request; its fallbacks are this bridge's).
     *
     * @return the L2 client.
     */
    public ObjectStore client()
    {
        return client;
    }

    /**
     * Returns L1 misses sent to L2 (files under a root not refused before).
     *
     * @return reads sent to L2.
     */
    public long reads()
    {
        return reads.get();
    }

    /**
     * Returns reads L2 served whole.
     *
     * @return L2 hits.
     */
    public long hits()
    {
        return hits.get();
    }

    /**
     * Returns bytes L2 served.
     *
     * @return bytes from L2.
     */
    public long bytes()
    {
        return bytes.get();
    }

    /**
     * Returns bytes L2 served, for the engine's statistics.
     *
     * @return bytes from L2.
     */
    @Override
    public long l2Bytes()
    {
        return bytes.get();
    }

    /**
     * Returns reads sent to L2 that the source served instead (no answer, an error answer, a broken body).
     *
     * @return L2 fallbacks.
     */
    public long fallbacks()
    {
        return fallbacks.get();
    }

    /**
     * Returns files (and answers) whose L2 size differed from the adapter's length: from then on read from the
     * source.
     *
     * @return size mismatches.
     */
    public long sizeMismatches()
    {
        return sizeMismatches.get();
    }

    /**
     * Returns reads of files under a root that the source served because L2 had refused the file before, or because
     * L2's answer reported no object size to check.
     *
     * @return reads served by the source for want of a size L2 confirmed.
     */
    public long unverified()
    {
        return unverified.get();
    }

    /**
     * Returns reads of files under no root (never sent to L2).
     *
     * @return reads outside L2.
     */
    public long unmapped()
    {
        return unmapped.get();
    }

    /**
     * The engine's fetch: {@code objectSize} is the engine's {@link FetchRun}, whose owner's counters get the L2 hit.
     * Sizes come from the keys, so nothing is reported to it.
     */
    @Override
    public CompletableFuture<Integer> read(
        final String key, final long offset, final ByteBuffer destination, final FetchClass fetchClass,
        final LongConsumer objectSize)
    {
        return bridged(key, offset, destination, fetchClass,
            objectSize instanceof FetchRun ? ((FetchRun) objectSize).statistics() : null);
    }

    private CompletableFuture<Integer> bridged(
        final String key, final long offset, final ByteBuffer destination, final FetchClass fetchClass,
        final ReadStatistics stats)
    {
        final String serverKey;
        final long length;
        try
        {
            serverKey = settings.serverKey(CacheKeys.locationOf(key));
            length = CacheKeys.lengthOf(key);
        }
        catch (final RuntimeException ex)
        {
            return router.read(key, offset, destination, fetchClass, null);
        }
        if (serverKey == null || offset >= length || !destination.hasRemaining())
        {
            if (serverKey == null)
            {
                unmapped.incrementAndGet();
            }
            return router.read(key, offset, destination, fetchClass, null);
        }
        final int want = (int) Math.min(destination.remaining(), length - offset);
        final CompletableFuture<Integer> result = new CompletableFuture<>();
        if (refused.getIfPresent(key) != null)
        {
            unverified.incrementAndGet();
            if (stats != null)
            {
                stats.l2UnverifiedRead();
            }
            fromSource(key, offset, destination, fetchClass, result);
        }
        else
        {
            fromL2(key, serverKey, length, offset, destination.slice(destination.position(), want), fetchClass,
                result, stats);
        }
        return result;
    }

    private void fromL2(
        final String key, final String serverKey, final long length, final long offset, final ByteBuffer destination,
        final FetchClass fetchClass, final CompletableFuture<Integer> result, final ReadStatistics stats)
    {
        reads.incrementAndGet();
        final L2Read read = new L2Read(key, length, offset, destination, fetchClass, result, stats);
        Futures.call(() -> client.read(serverKey, offset, destination, fetchClass, read)).whenComplete(read);
    }

    /**
     * One L2 read in flight: the size the answer reports (told before the read completes, so a plain field read
     * after the completion sees it) and what the completion does. One object per read carries both, instead of an
     * {@code AtomicLong} and a capturing lambda.
     */
    private final class L2Read implements LongConsumer, BiConsumer<Integer, Throwable>
    {
        private final String key;
        private final long length;
        private final long offset;
        private final ByteBuffer destination;
        private final FetchClass fetchClass;
        private final CompletableFuture<Integer> result;
        private final ReadStatistics stats;
        private final int want;
        /** Stays -1 when the answer reports no size. */
        private long reported = -1;

        L2Read(
            final String key, final long length, final long offset, final ByteBuffer destination,
            final FetchClass fetchClass, final CompletableFuture<Integer> result, final ReadStatistics stats)
        {
            this.key = key;
            this.length = length;
            this.offset = offset;
            this.destination = destination;
            this.fetchClass = fetchClass;
            this.result = result;
            this.stats = stats;
            this.want = destination.remaining();
        }

        @Override
        public void accept(final long size)
        {
            reported = size;
        }

        @Override
        public void accept(final Integer n, final Throwable error)
        {
            if (error != null)
            {
                fallbacks.incrementAndGet();
                if (stats != null)
                {
                    stats.l2Fallback();
                }
                fromSource(key, offset, destination, fetchClass, result);
            }
            else if (n != want || (reported >= 0 && reported != length))
            {
                // The server's object is not as long as the adapter's file: not the same version.
                sizeMismatches.incrementAndGet();
                if (stats != null)
                {
                    stats.l2SizeMismatch();
                }
                refused.put(key, Boolean.FALSE);
                fromSource(key, offset, destination, fetchClass, result);
            }
            else if (reported < 0)
            {
                // Nothing to check the answer against: its bytes may be another version's.
                unverified.incrementAndGet();
                if (stats != null)
                {
                    stats.l2UnverifiedRead();
                }
                fromSource(key, offset, destination, fetchClass, result);
            }
            else
            {
                hits.incrementAndGet();
                bytes.addAndGet(n);
                if (stats != null)
                {
                    stats.l2Hit(n);
                }
                result.complete(n);
            }
        }
    }

    private void fromSource(
        final String key, final long offset, final ByteBuffer destination, final FetchClass fetchClass,
        final CompletableFuture<Integer> result)
    {
        final CompletableFuture<Integer> io =
            Futures.call(() -> router.read(key, offset, destination, fetchClass, null));
        io.whenComplete((n, error) ->
        {
            if (error != null)
            {
                result.completeExceptionally(error);
            }
            else
            {
                result.complete(n);
            }
        });
    }

    @Override
    public void close()
    {
        try
        {
            client.close();
        }
        finally
        {
            super.close();
        }
    }

    @Override
    public String toString()
    {
        return "L2Bridge{" + settings + ", reads=" + reads + ", hits=" + hits + ", fallbacks=" + fallbacks +
            ", sizeMismatches=" + sizeMismatches + ", unverified=" + unverified + ", unmapped=" + unmapped + "}";
    }

    /**
     * The origin the L2 client falls back to: it fails at once, so the client's fallback ends here and the bridge
     * reads the bytes under the adapter's key. Stateless; closing it does nothing.
     */
    private static final class NotFromL2 implements ObjectStore
    {
        static final NotFromL2 ORIGIN = new NotFromL2();
        private static final RuntimeException NOT_FROM_L2 = new L2Unavailable();

        @Override
        public String namespace()
        {
            return "offcache-adapter-l2";
        }

        @Override
        public CompletableFuture<Long> size(final String key)
        {
            return CompletableFuture.failedFuture(NOT_FROM_L2);
        }

        @Override
        public CompletableFuture<Integer> read(
            final String key, final long offset, final ByteBuffer destination, final FetchClass fetchClass,
            final LongConsumer objectSize)
        {
            return CompletableFuture.failedFuture(NOT_FROM_L2);
        }

        @Override
        public CompletableFuture<Integer> readIfMatch(
            final String key, final long offset, final ByteBuffer destination, final String ifMatch)
        {
            return CompletableFuture.failedFuture(NOT_FROM_L2);
        }

        @Override
        public CompletableFuture<String> version(final String key)
        {
            return CompletableFuture.failedFuture(NOT_FROM_L2);
        }

        @Override
        public CompletableFuture<Void> put(final String key, final ByteBuffer source)
        {
            return CompletableFuture.failedFuture(NOT_FROM_L2);
        }

        @Override
        public CompletableFuture<Void> delete(final String key)
        {
            return CompletableFuture.failedFuture(NOT_FROM_L2);
        }

        @Override
        public CompletableFuture<List<String>> list(final String prefix)
        {
            return CompletableFuture.failedFuture(NOT_FROM_L2);
        }

        @Override
        public void close()
        {
        }
    }

    /** L2 did not serve a request; the bridge reads from the source. One shared instance, no stack trace. */
    private static final class L2Unavailable extends RuntimeException
    {
        private static final long serialVersionUID = 1L;

        L2Unavailable()
        {
            super("not served by L2", null, false, false);
        }
    }
}
