package dev.offcache.range.l2.shard;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.offcache.range.l2.FallbackReason;
import dev.offcache.range.l2.L2ClientCounters;
import dev.offcache.range.origin.FileSystemOrigin;
import dev.offcache.range.testing.Exposition;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The router with servers that are not there (refused ports on 127.0.0.1): every read still equals the origin's
 * bytes, failed health checks take the servers out (counted, with skips counted on the servers that lost the
 * call), no server left sends reads to the origin; servers are added and removed at runtime, and the owner a
 * call goes to is the rendezvous owner. Real servers are in cache-server's {@code ShardedL2AgainstServersTest}.
 */
class ShardedL2ClientTest
{
    @TempDir
    Path tmp;

    private ShardedL2Client router;

    @AfterEach
    void tearDown()
    {
        if (router != null)
        {
            router.close();
        }
    }

    @Test
    void deadServersAreSkippedAndEveryReadEqualsTheOrigin() throws Exception
    {
        final byte[] truth = new byte[300_000];
        new Random(5).nextBytes(truth);
        Files.write(tmp.resolve("obj.bin"), truth);
        final List<URI> servers = refusedServers(3);
        router = new ShardedL2Client(new ShardedL2Context()
            .servers(servers)
            .apiKey("key-0123456789")
            .origin(new FileSystemOrigin(tmp, 2))
            .healthInterval(Duration.ofMillis(20)).healthTimeout(Duration.ofMillis(200)).unhealthyAfter(2));
        assertEquals(3, router.servers().size());
        final Random random = new Random(9);
        for (int i = 0; i < 30; i++)
        {
            final int length = 1 + random.nextInt(50_000);
            final int offset = random.nextInt(truth.length - length);
            assertRead(truth, offset, length);
        }
        awaitTrue(() -> router.servers().stream().noneMatch(L2Shard::healthy), "all servers marked unhealthy");
        for (final L2Shard shard : router.servers())
        {
            assertTrue(shard.get(L2Shard.Counter.HEALTH_FAILURES) >= 2, shard + " counted its failures");
            assertEquals(1, shard.get(L2Shard.Counter.MARKED_UNHEALTHY));
        }
        final long routed = routedReads();
        final long noServer = router.noServer("read");
        final long skipped = skipped();
        assertRead(truth, 1000, 4000);
        assertEquals(noServer + 1, router.noServer("read"), "no server left: the origin answered");
        assertEquals(routed, routedReads());
        assertEquals(skipped + 3, skipped(), "every server lost the call and counted a skip");
        assertNull(router.ownerOf("obj.bin"));
        assertEquals(truth.length, (long) router.size("obj.bin").get(10, TimeUnit.SECONDS));
        assertFalse(router.notifyWritten("obj.bin", truth.length), "no owner to warm");
        final Exposition page = Exposition.parse(router.toPrometheusText());
        final String id = router.servers().get(0).id();
        assertEquals(0, page.value("offcache_l2shard_healthy", "server", id));
        assertEquals(router.noServer("read"), page.value("offcache_l2shard_no_server_total", "op", "read"));
        assertEquals(router.servers().get(0).client().metrics().get(L2ClientCounters.Counter.READS),
            page.value("offcache_l2client_reads_total", "server", id));
        assertEquals(router.servers().get(0).client().metrics().readFallbacks(FallbackReason.CONNECT),
            page.value("offcache_l2client_fallbacks_total", "server", id, "op", "read", "reason", "connect"));
        assertEquals(page.types().keySet(), page.helps().keySet(), "every family has HELP");
    }

    @Test
    void callsGoToTheRendezvousOwnerAndServersComeAndGoAtRuntime() throws Exception
    {
        final List<URI> servers = refusedServers(4);
        router = new ShardedL2Client(new ShardedL2Context()
            .servers(servers.subList(0, 3))
            .apiKey("key-0123456789")
            .origin(new FileSystemOrigin(tmp, 1))
            .healthInterval(Duration.ofHours(1)).healthTimeout(Duration.ofMillis(200)).unhealthyAfter(2));
        final List<String> keys = new ArrayList<>();
        for (int k = 0; k < 2000; k++)
        {
            keys.add(RendezvousSpreadTest.key(k));
        }
        final List<L2Shard> before = new ArrayList<>();
        for (final String key : keys)
        {
            final L2Shard owner = router.ownerOf(key);
            assertSame(router.servers().get(RendezvousHash.owner(seeds(router.servers()), RendezvousHash.hash(key))),
                owner);
            before.add(owner);
        }
        final L2Shard added = router.addServer(servers.get(3));
        assertEquals(4, router.servers().size());
        assertThrows(IllegalArgumentException.class, () -> router.addServer(servers.get(3)), "listed twice");
        int moved = 0;
        for (int k = 0; k < keys.size(); k++)
        {
            final L2Shard now = router.ownerOf(keys.get(k));
            if (now != before.get(k))
            {
                moved++;
                assertSame(added, now, "a key moved between old servers");
            }
        }
        assertTrue(moved > 350 && moved < 650, moved + " of 2000 keys moved to the 4th server");
        final L2Shard removed = router.servers().get(1);
        assertTrue(router.removeServer(URI.create(removed.id() + "/")));
        assertFalse(router.removeServer(removed.uri()), "already gone");
        assertEquals(3, router.servers().size());
        for (int k = 0; k < keys.size(); k++)
        {
            final L2Shard now = router.ownerOf(keys.get(k));
            final L2Shard was = before.get(k) == removed ? null : before.get(k);
            if (was != null && router.servers().contains(was) && now != was)
            {
                assertSame(added, now, "only the removed server's keys move (or the added server's)");
            }
            assertNotNull(now);
        }
    }

    @Test
    void readsStayCorrectWhileServersAreAddedAndRemovedConcurrently() throws Exception
    {
        final byte[] truth = new byte[200_000];
        new Random(6).nextBytes(truth);
        Files.write(tmp.resolve("obj.bin"), truth);
        final List<URI> pool = refusedServers(6);
        router = new ShardedL2Client(new ShardedL2Context()
            .servers(pool.subList(0, 3))
            .apiKey("key-0123456789")
            .origin(new FileSystemOrigin(tmp, 2))
            .client((client) -> client.abandonTimeout(Duration.ofMillis(200)))
            .healthInterval(Duration.ofMillis(10)).healthTimeout(Duration.ofMillis(200)).unhealthyAfter(1));
        final java.util.concurrent.atomic.AtomicReference<Throwable> failure =
            new java.util.concurrent.atomic.AtomicReference<>();
        final java.util.concurrent.atomic.AtomicInteger reads = new java.util.concurrent.atomic.AtomicInteger();
        final List<Thread> readers = new ArrayList<>();
        for (int t = 0; t < 2; t++)
        {
            final int seed = t;
            readers.add(new Thread(() ->
            {
                final Random random = new Random(seed);
                try
                {
                    for (int i = 0; i < 300; i++)
                    {
                        final int length = 1 + random.nextInt(20_000);
                        assertRead(truth, random.nextInt(truth.length - length), length);
                        router.ownerOf("k" + i);
                        reads.incrementAndGet();
                    }
                }
                catch (final Throwable ex)
                {
                    failure.compareAndSet(null, ex);
                }
            }));
        }
        readers.forEach(Thread::start);
        final Random random = new Random(7);
        int changes = 0;
        for (int i = 0; i < 40; i++)
        {
            // One change per 15 reads, so the changes are spread over the whole read run.
            final int target = 15 * i;
            awaitTrue(() -> reads.get() >= target || failure.get() != null || readers.stream()
                .noneMatch(Thread::isAlive), "the readers reached " + target);
            changes++;
            final URI server = pool.get(random.nextInt(pool.size()));
            final boolean listed = router.servers().stream().anyMatch((s) -> s.uri().equals(server));
            if (listed)
            {
                assertTrue(router.removeServer(server));
            }
            else
            {
                router.addServer(server);
            }
        }
        for (final Thread reader : readers)
        {
            reader.join(TimeUnit.SECONDS.toMillis(30));
        }
        if (failure.get() != null)
        {
            throw new AssertionError("a concurrent read failed", failure.get());
        }
        assertEquals(600, reads.get());
        assertEquals(40, changes);
        assertEquals(router.servers().stream().map(L2Shard::id).distinct().count(), router.servers().size());
    }

    private long routedReads()
    {
        return router.servers().stream().mapToLong((s) -> s.get(L2Shard.Counter.READS_ROUTED)).sum();
    }

    private long skipped()
    {
        return router.servers().stream().mapToLong((s) -> s.get(L2Shard.Counter.SKIPPED_UNHEALTHY) +
            s.get(L2Shard.Counter.SKIPPED_BREAKER)).sum();
    }

    private static long[] seeds(final List<L2Shard> shards)
    {
        return shards.stream().mapToLong(L2Shard::seed).toArray();
    }

    private void assertRead(final byte[] truth, final int offset, final int length) throws Exception
    {
        final ByteBuffer destination = ByteBuffer.allocateDirect(length);
        assertEquals(length, router.read("obj.bin", offset, destination).get(10, TimeUnit.SECONDS));
        final byte[] got = new byte[length];
        destination.get(got);
        final byte[] want = new byte[length];
        System.arraycopy(truth, offset, want, 0, length);
        assertArrayEquals(want, got, "at " + offset + "+" + length);
    }

    /** Ports on 127.0.0.1 that were just free: connecting is refused at once. */
    static List<URI> refusedServers(final int count) throws IOException
    {
        final List<URI> uris = new ArrayList<>();
        for (int i = 0; i < count; i++)
        {
            try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
            {
                uris.add(URI.create("http://127.0.0.1:" + socket.getLocalPort()));
            }
        }
        return uris;
    }

    static void awaitTrue(final BooleanSupplier condition, final String what) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() > deadline)
            {
                throw new AssertionError("timed out waiting until " + what);
            }
            Thread.sleep(5);
        }
    }
}
