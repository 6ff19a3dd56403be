package dev.offcache.server.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import dev.offcache.core.region.MappedRegion;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A server whose port is taken fails to launch and leaves nothing behind: its private counters region (a mapping,
 * counted by {@link MappedRegion#liveMappings()}), its prefetch workers and its event loops are gone.
 */
class FailedLaunchTest
{
    @TempDir
    Path tmp;

    @Test
    void aLaunchOnAPortInUseFreesItsCountersAndStopsItsThreads() throws Exception
    {
        try (ServerHarness harness = new ServerHarness(Files.createDirectories(tmp.resolve("origin")),
            tmp.resolve("ssd"), 4, 1L << 20, TransportKind.AUTO))
        {
            final List<String> threadsBefore = serverThreads();
            final long mappings = MappedRegion.liveMappings();
            for (int i = 0; i < 3; i++)
            {
                final L2HttpServer.Context context = new L2HttpServer.Context()
                    .listen("127.0.0.1", harness.port())
                    .ioThreads(2)
                    .prefetchThreads(2)
                    .engine(harness.cache)
                    .apiKeys(ApiKeys.parse(ServerHarness.KEY));
                assertThrows(ListenFailedException.class, () -> L2HttpServer.launch(context));
            }
            assertEquals(mappings, MappedRegion.liveMappings(), "mappings left by three failed launches");
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (!serverThreads().equals(threadsBefore) && System.nanoTime() < deadline)
            {
                Thread.sleep(10);
            }
            assertEquals(threadsBefore, serverThreads(), "prefetch and event-loop threads alive");
        }
    }

    /** The names of the live threads a server starts (prefetch workers, Netty's event loops), sorted. */
    private static List<String> serverThreads()
    {
        return Thread.getAllStackTraces().keySet().stream()
            .filter(Thread::isAlive)
            .map(Thread::getName)
            .filter((name) -> name.startsWith("offcache-prefetch") || name.contains("EventLoopGroup"))
            .sorted()
            .toList();
    }
}
