package dev.offcache.server.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongConsumer;
import java.util.function.UnaryOperator;

import dev.offcache.core.region.MappedRegion;
import dev.offcache.range.origin.ForwardingObjectStore;
import dev.offcache.range.origin.ObjectStore;
import dev.offcache.range.store.FetchClass;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A prefetch worker stuck past its join at close (in an origin call, made on the worker's own thread by the engine,
 * that ignores interrupts) may still write the counters: the server then reports its threads as not stopped and
 * keeps its private counters mapped, and frees nothing it could still write; once the worker ends, it reports them
 * stopped.
 */
class PrefetchWorkerOutlivesCloseTest
{
    @TempDir
    Path tmp;

    @Test
    void aServerKeepsItsCountersMappedWhileAPrefetchWorkerOutlivesItsJoin() throws Exception
    {
        final Path originDir = Files.createDirectories(tmp.resolve("origin"));
        Files.write(originDir.resolve("a.bin"), new byte[4 * ServerHarness.BLOCK]);
        final CountDownLatch entered = new CountDownLatch(1);
        final AtomicReference<String> enteredOn = new AtomicReference<>();
        final AtomicBoolean release = new AtomicBoolean();
        try (ServerHarness harness = new ServerHarness(originDir, tmp.resolve("ssd"), 4, 1L << 20,
            TransportKind.AUTO, 0, (origin) -> new StuckOrigin(origin, entered, enteredOn, release),
            UnaryOperator.identity()))
        {
            final long mappings = MappedRegion.liveMappings();
            final L2HttpServer server = L2HttpServer.launch(new L2HttpServer.Context()
                .listen("127.0.0.1", 0)
                .ioThreads(1)
                .prefetchThreads(1)
                .prefetchJoinTimeoutMs(50)
                .engine(harness.cache)
                .apiKeys(ApiKeys.parse(ServerHarness.KEY)));
            try
            {
                assertEquals(mappings + 1, MappedRegion.liveMappings(), "the server's private counters");
                final HttpResponse<String> accepted = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + server.address().getPort() + "/prefetch"))
                    .header("Authorization", "Bearer " + ServerHarness.KEY)
                    .POST(HttpRequest.BodyPublishers.ofString("{\"key\":\"a.bin\",\"size\":" +
                        4 * ServerHarness.BLOCK + "}"))
                    .build(), HttpResponse.BodyHandlers.ofString());
                assertEquals(202, accepted.statusCode(), accepted.body());
                assertTrue(entered.await(20, TimeUnit.SECONDS), "the worker reached the origin");
                assertTrue(enteredOn.get().startsWith("offcache-prefetch-"),
                    "the engine called the origin on the prefetch worker's thread: " + enteredOn.get());
                server.close();
                assertFalse(server.threadsStopped(), "the stuck worker outlived its 50 ms join");
                assertEquals(mappings + 1, MappedRegion.liveMappings(),
                    "counters a live worker may write stay mapped");
            }
            finally
            {
                release.set(true);
            }
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!server.threadsStopped() && System.nanoTime() < deadline)
            {
                Thread.sleep(10);
            }
            assertTrue(server.threadsStopped(), "the worker ended once released");
        }
    }

    /**
     * The origin, except that its first size or read waits on the calling thread, ignoring interrupts, until
     * {@code release} is set (then every call goes through).
     */
    private static final class StuckOrigin extends ForwardingObjectStore
    {
        private final CountDownLatch entered;
        private final AtomicReference<String> enteredOn;
        private final AtomicBoolean release;

        StuckOrigin(final ObjectStore origin, final CountDownLatch entered, final AtomicReference<String> enteredOn,
            final AtomicBoolean release)
        {
            super(origin);
            this.entered = entered;
            this.enteredOn = enteredOn;
            this.release = release;
        }

        @Override
        public CompletableFuture<Long> size(final String key)
        {
            waitForRelease();
            return super.size(key);
        }

        @Override
        public CompletableFuture<Integer> read(
            final String key, final long offset, final ByteBuffer destination, final FetchClass fetchClass,
            final LongConsumer objectSize)
        {
            waitForRelease();
            return super.read(key, offset, destination, fetchClass, objectSize);
        }

        private void waitForRelease()
        {
            if (enteredOn.compareAndSet(null, Thread.currentThread().getName()))
            {
                entered.countDown();
            }
            boolean interrupted = false;
            while (!release.get())
            {
                interrupted |= Thread.interrupted();
                LockSupport.parkNanos(1_000_000);
            }
            if (interrupted)
            {
                Thread.currentThread().interrupt();
            }
        }
    }
}
