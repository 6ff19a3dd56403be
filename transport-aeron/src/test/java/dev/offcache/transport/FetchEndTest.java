package dev.offcache.transport;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import dev.offcache.transport.client.PayloadClient;
import dev.offcache.transport.client.FetchException;
import dev.offcache.transport.media.AeronMedia;
import dev.offcache.transport.media.TransportChannels;
import dev.offcache.transport.server.PayloadServer;
import dev.offcache.transport.source.DirectBufferPayloadSource;
import dev.offcache.transport.wire.ErrorCode;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static dev.offcache.transport.TestSupport.assertBytesEqual;
import static dev.offcache.transport.TestSupport.failure;
import static dev.offcache.transport.TestSupport.filledDirect;
import static dev.offcache.transport.TestSupport.join;
import static dev.offcache.transport.TestSupport.randomDirect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A fetch that times out in the middle of a chunk, against a real media driver: the client agent is held inside the
 * first write into the destination past the fetch's deadline, so the deadline passes while the rest of that chunk's
 * fragments still wait in the term. After the fetch has failed, not one more byte is written into the destination
 * (which its caller may have unmapped by then), and the connection keeps serving other fetches.
 */
class FetchEndTest
{
    private static final Duration WAIT = Duration.ofSeconds(30);

    @Test
    void aFetchThatTimesOutMidChunkWritesNothingAfterItFailed() throws Exception
    {
        final UnsafeBuffer block = randomDirect(4 * 1024 * 1024, 5);
        final UnsafeBuffer small = randomDirect(4096, 6);
        final DirectBufferPayloadSource source = new DirectBufferPayloadSource().register("block", block)
            .register("small", small);
        try (AeronMedia media = TestSupport.launchTestMedia();
            PayloadServer server = PayloadServer.launch(new PayloadServer.Context().aeron(media.aeron())
                .payloadSource(source).requestChannel(TransportChannels.IPC).chunkLength(1024 * 1024));
            PayloadClient client = PayloadClient.connect(new PayloadClient.Context().aeron(media.aeron())
                .requestChannel(TransportChannels.IPC).fragmentLimit(1)))
        {
            final AtomicReference<CompletableFuture<Long>> fetch = new AtomicReference<>();
            final AtomicInteger writes = new AtomicInteger();
            final AtomicInteger writesAfterEnd = new AtomicInteger();
            final UnsafeBuffer destination = new UnsafeBuffer(filledDirect(block.capacity(), (byte) 0))
            {
                @Override
                public void putBytes(final int index, final DirectBuffer src, final int srcIndex, final int length)
                {
                    final CompletableFuture<Long> future = fetch.get();
                    if (future != null && future.isDone())
                    {
                        writesAfterEnd.incrementAndGet();
                    }
                    if (writes.incrementAndGet() == 1)
                    {
                        sleep(400); // the client agent is held here, past the fetch's deadline, mid-chunk
                    }
                    super.putBytes(index, src, srcIndex, length);
                }
            };
            fetch.set(client.fetch("block", 0, -1, destination, 0, TimeUnit.MILLISECONDS.toNanos(100)));
            final FetchException ex = failure(fetch.get(), WAIT);
            TestSupport.assertCode(ErrorCode.TIMEOUT, ex);
            // Whatever was left of the chunk in the term is read before this later answer on the same image.
            final UnsafeBuffer smallDestination = filledDirect(small.capacity(), (byte) 0);
            assertEquals(small.capacity(), join(client.fetch("small", smallDestination, 0), WAIT));
            assertBytesEqual(small, 0, smallDestination, 0, small.capacity());
            assertTrue(writes.get() >= 1, "the fetch had begun writing");
            assertEquals(0, writesAfterEnd.get(), "writes into the destination after the fetch failed");
            assertEquals(2, server.counters().requests());
        }
        assertEquals(0, source.openHandles());
    }

    private static void sleep(final long ms)
    {
        try
        {
            Thread.sleep(ms);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }
}
