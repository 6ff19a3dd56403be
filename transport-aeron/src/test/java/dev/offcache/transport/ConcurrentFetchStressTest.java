package dev.offcache.transport;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.offcache.transport.client.PayloadClient;
import dev.offcache.transport.media.AeronMedia;
import dev.offcache.transport.media.TransportChannels;
import dev.offcache.transport.server.PayloadServer;
import dev.offcache.transport.source.DirectBufferPayloadSource;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static dev.offcache.transport.TestSupport.assertBytesEqual;
import static dev.offcache.transport.TestSupport.filledDirect;
import static dev.offcache.transport.TestSupport.join;
import static dev.offcache.transport.TestSupport.randomDirect;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Eight caller threads share one client and keep up to four fetches each in flight: random blocks, random ranges,
 * buffer and stream mode mixed, for a bounded number of rounds. Every byte is checked; nothing may hang.
 */
class ConcurrentFetchStressTest
{
    private static final int THREADS = 8;
    private static final int ROUNDS = 40;

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void manyThreadsShareOneClient() throws Exception
    {
        final UnsafeBuffer[] blocks = new UnsafeBuffer[4];
        final DirectBufferPayloadSource source = new DirectBufferPayloadSource();
        for (int i = 0; i < blocks.length; i++)
        {
            blocks[i] = randomDirect((1 << (10 + 3 * i)) + i * 13, 50 + i);
            source.register("b" + i, blocks[i]);
        }
        final ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try (AeronMedia media = TestSupport.launchTestMedia();
            PayloadServer server = PayloadServer.launch(new PayloadServer.Context().aeron(media.aeron())
                .payloadSource(source).requestChannel(TransportChannels.IPC).chunkLength(64 * 1024));
            PayloadClient client = PayloadClient.connect(new PayloadClient.Context().aeron(media.aeron())
                .requestChannel(TransportChannels.IPC)))
        {
            final List<Future<Integer>> results = new ArrayList<>();
            for (int t = 0; t < THREADS; t++)
            {
                final long seed = t;
                results.add(pool.submit(() -> runCaller(client, blocks, seed)));
            }
            int verified = 0;
            for (final Future<Integer> result : results)
            {
                verified += result.get(50, TimeUnit.SECONDS);
            }
            assertEquals(THREADS * ROUNDS * 4, verified);
            assertEquals(THREADS * ROUNDS * 4, server.counters().requests());
        }
        finally
        {
            pool.shutdownNow();
        }
        assertEquals(0, source.openHandles());
    }

    private static int runCaller(final PayloadClient client, final UnsafeBuffer[] blocks, final long seed)
    {
        final SplittableRandom random = new SplittableRandom(seed);
        int verified = 0;
        for (int round = 0; round < ROUNDS; round++)
        {
            final List<CompletableFuture<Long>> futures = new ArrayList<>();
            final List<UnsafeBuffer> destinations = new ArrayList<>();
            final int[] blockIndex = new int[4];
            final int[] offsets = new int[4];
            final int[] lengths = new int[4];
            for (int i = 0; i < 4; i++)
            {
                blockIndex[i] = random.nextInt(blocks.length);
                final int size = blocks[blockIndex[i]].capacity();
                offsets[i] = random.nextInt(size + 1);
                lengths[i] = random.nextInt(size - offsets[i] + 1);
                final UnsafeBuffer destination = filledDirect(lengths[i], (byte) 0);
                destinations.add(destination);
                if (random.nextBoolean())
                {
                    futures.add(client.fetch("b" + blockIndex[i], offsets[i], lengths[i], destination, 0,
                        TimeUnit.SECONDS.toNanos(20)));
                }
                else
                {
                    futures.add(client.stream("b" + blockIndex[i], offsets[i], lengths[i],
                        (buffer, offset, length, position, total) ->
                            destination.putBytes((int) position, buffer, offset, length),
                        TimeUnit.SECONDS.toNanos(20)));
                }
            }
            for (int i = 0; i < 4; i++)
            {
                assertEquals(lengths[i], join(futures.get(i), Duration.ofSeconds(30)));
                assertBytesEqual(blocks[blockIndex[i]], offsets[i], destinations.get(i), 0, lengths[i]);
                verified++;
            }
        }
        return verified;
    }
}
