package dev.offcache.transport.client;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import dev.offcache.transport.wire.ErrorCode;
import io.aeron.logbuffer.FrameDescriptor;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * After a fetch ends, for any reason, no byte reaches its destination (or handler): two fetches answered in chunks,
 * cut into fragments at random; at a random fragment one of them ends, by its deadline (the agent removes and
 * fails it, as {@code PayloadClientAgent.expire} does) or by its caller (cancel, or a completion of the caller's
 * own). Whatever of its chunk was still to come, the destination afterwards equals what it held at the end, the
 * other fetch completes byte-equal, and a caller-ended fetch still in flight is cancelled on the server exactly once.
 */
class LateDeliveryProperties
{
    @Property(tries = 300)
    void anEndedFetchReceivesNothingMore(
        @ForAll final long seed,
        @ForAll @IntRange(min = 100, max = 5000) final int chunkLength,
        @ForAll @IntRange(min = 41, max = 700) final int fragmentLength,
        @ForAll @IntRange(min = 0, max = 2) final int howItEnds,
        @ForAll final boolean streamMode)
    {
        final SplittableRandom random = new SplittableRandom(seed);
        final Long2ObjectHashMap<Fetch> inFlight = new Long2ObjectHashMap<>();
        final List<Long> cancelled = new ArrayList<>();
        final ResponseAssembler assembler = new ResponseAssembler(inFlight, cancelled::add);
        final UnsafeBuffer[] sources = new UnsafeBuffer[2];
        final UnsafeBuffer[] destinations = new UnsafeBuffer[2];
        final Fetch[] fetches = new Fetch[2];
        final List<byte[]> messages = new ArrayList<>();
        for (int f = 0; f < 2; f++)
        {
            final int size = 1 + random.nextInt(20_000);
            sources[f] = new UnsafeBuffer(new byte[size]);
            for (int i = 0; i < size; i++)
            {
                sources[f].putByte(i, (byte) (1 + random.nextInt(255)));
            }
            final UnsafeBuffer destination = new UnsafeBuffer(ByteBuffer.allocateDirect(size));
            destinations[f] = destination;
            fetches[f] = streamMode ?
                new Fetch("f" + f, 0, -1, null, 0, (buffer, offset, length, position, total) ->
                    destination.putBytes((int) position, buffer, offset, length), 1, null) :
                new Fetch("f" + f, 0, -1, destination, 0, null, 1, null);
            fetches[f].correlationId = 500 + f;
            inFlight.put(fetches[f].correlationId, fetches[f]);
        }
        // Both fetches' chunks alternate on one image.
        final long[] positions = new long[2];
        final int[] indexes = new int[2];
        while (positions[0] < sources[0].capacity() || positions[1] < sources[1].capacity())
        {
            for (int f = 0; f < 2; f++)
            {
                if (positions[f] < sources[f].capacity())
                {
                    final int length = (int) Math.min(chunkLength, sources[f].capacity() - positions[f]);
                    messages.add(ResponseAssemblerProperties.chunkMessage(fetches[f].correlationId, positions[f],
                        sources[f].capacity(), indexes[f]++, sources[f], length));
                    positions[f] += length;
                }
            }
        }
        final List<int[]> fragments = new ArrayList<>();
        for (int m = 0; m < messages.size(); m++)
        {
            final int length = messages.get(m).length;
            for (int start = 0; start < length; start += fragmentLength)
            {
                final int end = Math.min(length, start + fragmentLength);
                final int flags = (start == 0 ? FrameDescriptor.BEGIN_FRAG_FLAG : 0) |
                    (end == length ? FrameDescriptor.END_FRAG_FLAG : 0);
                fragments.add(new int[] {m, start, end, flags});
            }
        }

        final int victim = random.nextInt(2);
        final int endAt = random.nextInt(fragments.size());
        byte[] atEnd = null;
        for (int i = 0; i < fragments.size(); i++)
        {
            if (i == endAt)
            {
                final Fetch fetch = fetches[victim];
                switch (howItEnds)
                {
                    case 0 ->
                    {
                        inFlight.remove(fetch.correlationId);
                        fetch.fail(new FetchException(ErrorCode.TIMEOUT, "deadline"));
                    }
                    case 1 -> fetch.future.cancel(true);
                    default -> fetch.future.complete(-1L);
                }
                atEnd = new byte[destinations[victim].capacity()];
                destinations[victim].getBytes(0, atEnd);
            }
            final int[] fragment = fragments.get(i);
            final UnsafeBuffer term = new UnsafeBuffer(messages.get(fragment[0]), fragment[1],
                fragment[2] - fragment[1]);
            assembler.onFragment(term, 0, fragment[2] - fragment[1], fragment[3], 9);
        }

        final byte[] after = new byte[destinations[victim].capacity()];
        destinations[victim].getBytes(0, after);
        assertTrue(Arrays.equals(atEnd, after), "bytes reached the destination after the fetch ended");
        final int other = 1 - victim;
        if (fetches[victim].received < sources[victim].capacity())
        {
            assertFalse(inFlight.containsKey(fetches[victim].correlationId), "the ended fetch left the table");
            assertEquals(howItEnds == 0 ? 0 : 1,
                cancelled.stream().filter(id -> id == fetches[victim].correlationId).count(),
                "a caller-ended fetch is cancelled on the server once (a timed-out one by the agent)");
        }
        assertEquals(sources[other].capacity(), fetches[other].future.join());
        for (int i = 0; i < sources[other].capacity(); i++)
        {
            assertEquals(sources[other].getByte(i), destinations[other].getByte(i), "byte " + i);
        }
    }

    @Test
    void aCallersCancelWaitsForThePieceBeingDeliveredAndNothingFollowsIt() throws Exception
    {
        final Long2ObjectHashMap<Fetch> inFlight = new Long2ObjectHashMap<>();
        final List<Long> cancelled = new ArrayList<>();
        final ResponseAssembler assembler = new ResponseAssembler(inFlight, cancelled::add);
        final UnsafeBuffer source = new UnsafeBuffer(new byte[3000]);
        final CountDownLatch inside = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final AtomicInteger pieces = new AtomicInteger();
        final AtomicBoolean cancelReturned = new AtomicBoolean();
        final AtomicBoolean pieceFinishedBeforeCancelReturned =
            new AtomicBoolean();
        final Fetch fetch = new Fetch("f", 0, -1, null, 0, (buffer, offset, length, position, total) ->
        {
            if (pieces.incrementAndGet() == 1)
            {
                inside.countDown();
                try
                {
                    release.await();
                }
                catch (final InterruptedException ex)
                {
                    Thread.currentThread().interrupt();
                }
                pieceFinishedBeforeCancelReturned.set(!cancelReturned.get());
            }
        }, 1, null);
        fetch.correlationId = 7;
        inFlight.put(7, fetch);
        final byte[] message = ResponseAssemblerProperties.chunkMessage(7, 0, 3000, 0, source, 3000);
        final Thread agent = new Thread(() ->
        {
            assembler.onFragment(new UnsafeBuffer(message, 0, 1000), 0, 1000, FrameDescriptor.BEGIN_FRAG_FLAG, 1);
            assembler.onFragment(new UnsafeBuffer(message, 1000, 1000), 0, 1000, 0, 1);
            assembler.onFragment(new UnsafeBuffer(message, 2000, message.length - 2000), 0, message.length - 2000,
                FrameDescriptor.END_FRAG_FLAG, 1);
        });
        agent.start();
        assertTrue(inside.await(10, TimeUnit.SECONDS));
        final CountDownLatch cancelling = new CountDownLatch(1);
        final Thread caller = new Thread(() ->
        {
            cancelling.countDown();
            fetch.future.cancel(true);
            cancelReturned.set(true);
        });
        caller.start();
        assertTrue(cancelling.await(10, TimeUnit.SECONDS));
        // Give the cancel time to return if it did not wait (the check can only pass spuriously, never fail so).
        Thread.sleep(100);
        release.countDown();
        caller.join(10_000);
        agent.join(10_000);
        assertTrue(cancelReturned.get());
        assertTrue(pieceFinishedBeforeCancelReturned.get(), "cancel returned while a piece was being delivered");
        assertEquals(1, pieces.get(), "no piece after the cancel");
        assertEquals(List.of(7L), cancelled);
        assertTrue(inFlight.isEmpty());
    }
}
