package dev.offcache.server.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

import dev.offcache.core.region.MappedRegion;
import dev.offcache.server.source.EngineRangeSource;
import dev.offcache.server.source.RangeSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A prefetch worker stuck past its join at close (in a source call that ignores interrupts) may still write the
 * counters: the server then reports its threads as not stopped and keeps its private counters mapped, and frees
 * nothing it could still write; once the worker ends, it reports them stopped.
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
        try (ServerHarness harness = new ServerHarness(originDir, tmp.resolve("ssd"), 4, 1L << 20,
            TransportKind.AUTO))
        {
            final CountDownLatch entered = new CountDownLatch(1);
            final AtomicBoolean release = new AtomicBoolean();
            final RangeSource stuck = stuckPrefetches(new EngineRangeSource(harness.cache), entered, release);
            final long mappings = MappedRegion.liveMappings();
            final L2HttpServer server = L2HttpServer.launch(new L2HttpServer.Context()
                .listen("127.0.0.1", 0)
                .ioThreads(1)
                .prefetchThreads(1)
                .prefetchJoinTimeoutMs(50)
                .source(stuck)
                .apiKeys(ApiKeys.parse(ServerHarness.KEY)));
            assertEquals(mappings + 1, MappedRegion.liveMappings(), "the server's private counters");
            final HttpResponse<String> accepted = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + server.address().getPort() + "/prefetch"))
                .header("Authorization", "Bearer " + ServerHarness.KEY)
                .POST(HttpRequest.BodyPublishers.ofString("{\"key\":\"a.bin\",\"size\":" +
                    4 * ServerHarness.BLOCK + "}"))
                .build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(202, accepted.statusCode(), accepted.body());
            assertTrue(entered.await(20, TimeUnit.SECONDS), "the worker reached the source");
            server.close();
            assertFalse(server.threadsStopped(), "the stuck worker outlived its 50 ms join");
            assertEquals(mappings + 1, MappedRegion.liveMappings(), "counters a live worker may write stay mapped");
            release.set(true);
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!server.threadsStopped() && System.nanoTime() < deadline)
            {
                Thread.sleep(10);
            }
            assertTrue(server.threadsStopped(), "the worker ended once released");
        }
    }

    /** The source, except that a prefetch waits, ignoring interrupts, until {@code release} is set. */
    private static RangeSource stuckPrefetches(
        final RangeSource source, final CountDownLatch entered, final AtomicBoolean release)
    {
        return (RangeSource) Proxy.newProxyInstance(RangeSource.class.getClassLoader(),
            new Class<?>[] {RangeSource.class}, (proxy, method, args) ->
            {
                if ("prefetch".equals(method.getName()))
                {
                    entered.countDown();
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
                    return CompletableFuture.completedFuture(null);
                }
                try
                {
                    return method.invoke(source, args);
                }
                catch (final InvocationTargetException ex)
                {
                    throw ex.getCause();
                }
            });
    }
}
