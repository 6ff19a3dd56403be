package dev.offcache.server.http;

import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.offcache.range.l2.L2ClientCounters;
import dev.offcache.range.l2.shard.L2Shard;
import dev.offcache.range.l2.shard.RendezvousHash;
import dev.offcache.range.l2.shard.ShardedL2Client;
import dev.offcache.range.l2.shard.ShardedL2Context;
import dev.offcache.range.origin.FileSystemOrigin;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The sharded L2 client against three real L2 servers on 127.0.0.1: random ranges equal the origin's bytes and
 * each read goes to (and hits in) its rendezvous owner; a killed server's reads still equal the origin, its keys
 * fail over to their next server once it fails its health checks (counted), and it takes them back after a
 * restart at the same address; write-time warming lands on the owner's SSD tier only.
 */
class ShardedL2AgainstServersTest
{
    private static final int BLOCK = ServerHarness.BLOCK;
    private static final int SERVERS = 3;
    private static final int OBJECTS = 24;

    @TempDir
    Path tmp;

    private Path originDir;
    private final List<byte[]> objects = new ArrayList<>();
    private final ServerHarness[] harnesses = new ServerHarness[SERVERS];
    private ShardedL2Client router;

    @BeforeEach
    void setUp() throws Exception
    {
        originDir = tmp.resolve("origin");
        Files.createDirectories(originDir.resolve("lake"));
        final Random random = new Random(21);
        for (int i = 0; i < OBJECTS; i++)
        {
            final byte[] bytes = new byte[BLOCK + random.nextInt(3 * BLOCK)];
            random.nextBytes(bytes);
            Files.write(originDir.resolve(key(i)), bytes);
            objects.add(bytes);
        }
        final List<URI> servers = new ArrayList<>();
        for (int s = 0; s < SERVERS; s++)
        {
            harnesses[s] = start(s, 0);
            servers.add(URI.create(harnesses[s].base()));
        }
        router = new ShardedL2Client(new ShardedL2Context()
            .servers(servers)
            .apiKey(ServerHarness.KEY)
            .origin(new FileSystemOrigin(originDir, 2))
            .client((client) -> client.abandonTimeout(Duration.ofSeconds(2)))
            .healthInterval(Duration.ofMillis(25)).healthTimeout(Duration.ofSeconds(2)).unhealthyAfter(2));
    }

    @AfterEach
    void tearDown()
    {
        if (router != null)
        {
            router.close();
        }
        for (final ServerHarness harness : harnesses)
        {
            if (harness != null)
            {
                harness.close();
            }
        }
    }

    @Test
    void randomRangesEqualTheOriginAndEachReadHitsItsOwner() throws Exception
    {
        final int[] expected = new int[SERVERS];
        final long[] seeds = router.servers().stream().mapToLong(L2Shard::seed).toArray();
        final Random random = new Random(4);
        for (int i = 0; i < 90; i++)
        {
            final int object = random.nextInt(OBJECTS);
            expected[RendezvousHash.owner(seeds, RendezvousHash.hash(key(object)))]++;
            randomRead(random, object);
        }
        for (int s = 0; s < SERVERS; s++)
        {
            final L2Shard shard = router.servers().get(s);
            assertEquals(expected[s], shard.get(L2Shard.Counter.READS_ROUTED), shard.id());
            assertEquals(expected[s], shard.client().metrics().get(L2ClientCounters.Counter.L2_HITS), shard.id());
            assertEquals(0, shard.client().metrics().readFallbacksTotal(), shard.id());
            // seeds come from the servers' ephemeral ports, so shares vary run to run (24 objects, 3 servers);
            // the exact per-owner counts above are the real check, this only guards against a degenerate run
            assertTrue(expected[s] > 0, "every server took a share: " + expected[s]);
        }
        assertEquals(0, router.noServer("read"));
    }

    @Test
    void aKilledServersKeysFailOverAndComeBackAfterARestart() throws Exception
    {
        final Random random = new Random(8);
        for (int i = 0; i < 30; i++)
        {
            randomRead(random, random.nextInt(OBJECTS));
        }
        final int victim = 1;
        final L2Shard victimShard = router.servers().get(victim);
        final int victimKey = firstKeyOwnedBy(victimShard);
        final int port = harnesses[victim].port();

        // A reader keeps going through the kill, the failover and the restart: every read must equal the origin.
        final AtomicBoolean stop = new AtomicBoolean();
        final AtomicLong backgroundReads = new AtomicLong();
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final Thread reader = new Thread(() ->
        {
            final Random own = new Random(99);
            while (!stop.get())
            {
                try
                {
                    randomRead(own, own.nextInt(OBJECTS));
                    backgroundReads.incrementAndGet();
                }
                catch (final Throwable ex)
                {
                    failure.compareAndSet(null, ex);
                    return;
                }
            }
        }, "sharded-reader");
        reader.start();
        try
        {
            awaitTrue(() -> backgroundReads.get() > 20, "the reader is running");
            harnesses[victim].close();
            harnesses[victim] = null;
            final long readsAtKill = backgroundReads.get();
            awaitTrue(() -> !victimShard.healthy(), "the killed server is marked unhealthy");
            assertEquals(1, victimShard.get(L2Shard.Counter.MARKED_UNHEALTHY));
            assertTrue(victimShard.get(L2Shard.Counter.HEALTH_FAILURES) >= 2);
            final long routedToVictim = victimShard.get(L2Shard.Counter.READS_ROUTED);
            final long skipped = victimShard.get(L2Shard.Counter.SKIPPED_UNHEALTHY);
            final L2Shard standIn = router.ownerOf(key(victimKey));
            assertNotSame(victimShard, standIn);
            final long standInHits = standIn.client().metrics().get(L2ClientCounters.Counter.L2_HITS);
            for (int i = 0; i < 60; i++)
            {
                randomRead(random, random.nextInt(OBJECTS));
            }
            assertRead(victimKey, 0, objects.get(victimKey).length);
            assertEquals(routedToVictim, victimShard.get(L2Shard.Counter.READS_ROUTED), "none to the dead server");
            assertTrue(victimShard.get(L2Shard.Counter.SKIPPED_UNHEALTHY) > skipped, "its reads counted as skipped");
            assertTrue(standIn.client().metrics().get(L2ClientCounters.Counter.L2_HITS) > standInHits,
                "its keys are served by their next server");
            final long readsWhileDown = backgroundReads.get() - readsAtKill;
            System.out.printf("killed %s: %d background reads while down, %d health failures, %d skipped calls, "
                + "%d reads fell back to the origin inside its client%n", victimShard.id(), readsWhileDown,
                victimShard.get(L2Shard.Counter.HEALTH_FAILURES), victimShard.get(L2Shard.Counter.SKIPPED_UNHEALTHY),
                victimShard.client().metrics().readFallbacksTotal());

            harnesses[victim] = start(victim, port);
            awaitTrue(victimShard::available, "the restarted server is back");
            assertEquals(1, victimShard.get(L2Shard.Counter.REJOINED));
            assertSame(victimShard, router.ownerOf(key(victimKey)));
            final long hits = victimShard.client().metrics().get(L2ClientCounters.Counter.L2_HITS);
            final long routed = victimShard.get(L2Shard.Counter.READS_ROUTED);
            assertRead(victimKey, 5, 2 * BLOCK - 5);
            assertTrue(victimShard.get(L2Shard.Counter.READS_ROUTED) > routed, "its key goes to it again");
            assertTrue(victimShard.client().metrics().get(L2ClientCounters.Counter.L2_HITS) > hits,
                "the rejoined server served its key");
            final long readsAtRejoin = backgroundReads.get();
            awaitTrue(() -> backgroundReads.get() > readsAtRejoin + 20, "the reader goes on after the rejoin");
        }
        finally
        {
            stop.set(true);
            reader.join(TimeUnit.SECONDS.toMillis(20));
        }
        if (failure.get() != null)
        {
            throw new AssertionError("a background read failed or differed from the origin", failure.get());
        }
    }

    @Test
    void warmingLandsOnTheOwnersSsdTierOnly() throws Exception
    {
        final int object = 3;
        final L2Shard owner = router.ownerOf(key(object));
        final int ownerIndex = router.servers().indexOf(owner);
        assertTrue(router.notifyWritten(key(object), objects.get(object).length));
        awaitTrue(() -> harnesses[ownerIndex].store.metrics().ssdWrites() >= blocks(object),
            "the owner stored the object on its SSD tier");
        for (int s = 0; s < SERVERS; s++)
        {
            if (s != ownerIndex)
            {
                assertEquals(0, harnesses[s].store.metrics().ssdWrites(), "server " + s + " was not warmed");
            }
        }
        assertEquals(1, owner.get(L2Shard.Counter.WARM_ROUTED));
        final long originReads = harnesses[ownerIndex].origin.gets();
        assertRead(object, 0, objects.get(object).length);
        assertEquals(originReads, harnesses[ownerIndex].origin.gets(), "served from what warming stored");
        assertTrue(harnesses[ownerIndex].store.metrics().ssdHits() > 0, "the read hit the SSD tier");
    }

    private ServerHarness start(final int index, final int port) throws InterruptedException
    {
        return new ServerHarness(originDir, tmp.resolve("ssd-" + index), 64, 64L * BLOCK, TransportKind.NIO, port);
    }

    private int firstKeyOwnedBy(final L2Shard shard)
    {
        for (int i = 0; i < OBJECTS; i++)
        {
            if (router.ownerOf(key(i)) == shard)
            {
                return i;
            }
        }
        throw new AssertionError("no object belongs to " + shard);
    }

    private int blocks(final int object)
    {
        return (objects.get(object).length + BLOCK - 1) / BLOCK;
    }

    private void randomRead(final Random random, final int object) throws Exception
    {
        final int size = objects.get(object).length;
        final int length = 1 + random.nextInt(random.nextBoolean() ? 2 * BLOCK : 3000);
        final int offset = random.nextInt(size);
        assertRead(object, offset, length);
    }

    private void assertRead(final int object, final int offset, final int length) throws Exception
    {
        final byte[] truth = objects.get(object);
        final ByteBuffer destination = ByteBuffer.allocateDirect(length);
        final int expected = Math.min(length, truth.length - offset);
        assertEquals(expected, router.read(key(object), offset, destination).get(10, TimeUnit.SECONDS));
        final byte[] got = new byte[expected];
        destination.get(got);
        final byte[] want = new byte[expected];
        System.arraycopy(truth, offset, want, 0, expected);
        assertArrayEquals(want, got, key(object) + " at " + offset + "+" + length);
    }

    private static String key(final int object)
    {
        return "lake/part-" + object + ".parquet";
    }

    private static void awaitTrue(final BooleanSupplier condition, final String what) throws InterruptedException
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
