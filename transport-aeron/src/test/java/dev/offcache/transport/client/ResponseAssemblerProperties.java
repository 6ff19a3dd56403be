package dev.offcache.transport.client;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutionException;

import dev.offcache.transport.wire.ErrorCode;
import dev.offcache.transport.wire.FrameHeader;
import dev.offcache.transport.wire.FrameType;
import io.aeron.logbuffer.FrameDescriptor;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.concurrent.UnsafeBuffer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The reassembly state machine against a reference model. A scenario: several fetches on two server images
 * (sessions), each answered by CHUNK frames of some chunk length (or cut short by an ERROR frame, as a server
 * deadline would), messages of one session in a random interleaving that keeps each fetch's order, every message
 * cut into fragments of a random size (the first must hold the 40-byte header, as Aeron's MTU guarantees), and the
 * two sessions' fragment streams merged at random. The model: each answered fetch ends with exactly the source
 * bytes and its length; each errored fetch fails with the server's code; nothing completes twice; no CANCEL is
 * sent for a fetch that got a complete answer.
 */
class ResponseAssemblerProperties
{
    @Property(tries = 300)
    void reassemblesWhateverTheFragmentationAndInterleaving(
        @ForAll final long seed,
        @ForAll @IntRange(min = 1, max = 6) final int fetchCount,
        @ForAll @IntRange(min = 1, max = 5000) final int chunkLength,
        @ForAll @IntRange(min = 41, max = 3000) final int fragmentLength,
        @ForAll final boolean streamMode) throws Exception
    {
        final SplittableRandom random = new SplittableRandom(seed);
        final Long2ObjectHashMap<Fetch> inFlight = new Long2ObjectHashMap<>();
        final List<Long> cancelled = new ArrayList<>();
        final ResponseAssembler assembler = new ResponseAssembler(inFlight, cancelled::add);

        final List<UnsafeBuffer> sources = new ArrayList<>();
        final List<UnsafeBuffer> destinations = new ArrayList<>();
        final List<Fetch> fetches = new ArrayList<>();
        final boolean[] errored = new boolean[fetchCount];
        final List<List<byte[]>> messagesBySession = List.of(new ArrayList<>(), new ArrayList<>());
        final List<ArrayDeque<byte[]>> perFetch = new ArrayList<>();
        final int[] sessionOf = new int[fetchCount];

        for (int f = 0; f < fetchCount; f++)
        {
            final int size = random.nextInt(4) == 0 ? 0 : random.nextInt(20_000);
            final UnsafeBuffer source = new UnsafeBuffer(new byte[size]);
            for (int i = 0; i < size; i++)
            {
                source.putByte(i, (byte) random.nextInt());
            }
            sources.add(source);
            final UnsafeBuffer destination = new UnsafeBuffer(ByteBuffer.allocateDirect(Math.max(1, size)), 0, size);
            destinations.add(destination);
            final Fetch fetch = streamMode ?
                new Fetch("f" + f, 0, -1, null, 0, (buffer, offset, length, position, total) ->
                    destination.putBytes((int) position, buffer, offset, length), 1, null) :
                new Fetch("f" + f, 0, -1, destination, 0, null, 1, null);
            fetch.correlationId = 1000 + f;
            fetch.sent = true;
            fetches.add(fetch);
            inFlight.put(fetch.correlationId, fetch);
            sessionOf[f] = random.nextInt(2);

            errored[f] = random.nextInt(5) == 0;
            final int errorAfterChunks = errored[f] ? random.nextInt(1 + size / chunkLength) : Integer.MAX_VALUE;
            final ArrayDeque<byte[]> messages = new ArrayDeque<>();
            long position = 0;
            int index = 0;
            do
            {
                if (index == errorAfterChunks)
                {
                    messages.add(errorMessage(fetch.correlationId, ErrorCode.SERVER_TIMEOUT));
                    break;
                }
                final int length = (int) Math.min(chunkLength, size - position);
                messages.add(chunkMessage(fetch.correlationId, position, size, index, source, length));
                position += length;
                index++;
            }
            while (position < size);
            if (errored[f] && messages.getLast()[FrameHeader.TYPE_OFFSET] != FrameType.ERROR)
            {
                errored[f] = false; // the error point fell after the last chunk: a normal answer
            }
            perFetch.add(messages);
        }

        // Interleave each session's fetches' messages, keeping every fetch's own order.
        for (int session = 0; session < 2; session++)
        {
            final List<ArrayDeque<byte[]>> queues = new ArrayList<>();
            for (int f = 0; f < fetchCount; f++)
            {
                if (sessionOf[f] == session)
                {
                    queues.add(perFetch.get(f));
                }
            }
            while (!queues.isEmpty())
            {
                final int pick = random.nextInt(queues.size());
                messagesBySession.get(session).add(queues.get(pick).poll());
                if (queues.get(pick).isEmpty())
                {
                    queues.remove(pick);
                }
            }
        }

        // Fragment both sessions and merge the two fragment streams at random.
        final List<ArrayDeque<int[]>> fragmentStreams = List.of(new ArrayDeque<>(), new ArrayDeque<>());
        final List<List<byte[]>> bySessionBytes = messagesBySession;
        for (int session = 0; session < 2; session++)
        {
            final List<byte[]> messages = bySessionBytes.get(session);
            for (int m = 0; m < messages.size(); m++)
            {
                final int length = messages.get(m).length;
                for (int start = 0; start < length; start += fragmentLength)
                {
                    final int end = Math.min(length, start + fragmentLength);
                    int flags = 0;
                    flags |= start == 0 ? FrameDescriptor.BEGIN_FRAG_FLAG : 0;
                    flags |= end == length ? FrameDescriptor.END_FRAG_FLAG : 0;
                    fragmentStreams.get(session).add(new int[]{m, start, end, flags});
                }
            }
        }
        while (!fragmentStreams.get(0).isEmpty() || !fragmentStreams.get(1).isEmpty())
        {
            final int session = fragmentStreams.get(0).isEmpty() ? 1 :
                fragmentStreams.get(1).isEmpty() ? 0 : random.nextInt(2);
            final int[] fragment = fragmentStreams.get(session).poll();
            final byte[] message = bySessionBytes.get(session).get(fragment[0]);
            // the fragment sits at a random offset of a larger term-like buffer
            final int pad = random.nextInt(64);
            final UnsafeBuffer term = new UnsafeBuffer(new byte[pad + fragment[2] - fragment[1]]);
            term.putBytes(pad, message, fragment[1], fragment[2] - fragment[1]);
            assembler.onFragment(term, pad, fragment[2] - fragment[1], (byte) fragment[3], 77 + session);
        }

        for (int f = 0; f < fetchCount; f++)
        {
            final Fetch fetch = fetches.get(f);
            assertTrue(fetch.future.isDone(), "fetch " + f + " finished");
            if (errored[f])
            {
                final ExecutionException ex = org.junit.jupiter.api.Assertions.assertThrows(
                    ExecutionException.class, fetch.future::get);
                assertEquals(ErrorCode.SERVER_TIMEOUT,
                    assertInstanceOf(FetchException.class, ex.getCause()).errorCode());
            }
            else
            {
                assertEquals(sources.get(f).capacity(), fetch.future.get());
                final UnsafeBuffer expected = sources.get(f);
                final UnsafeBuffer actual = destinations.get(f);
                for (int i = 0; i < expected.capacity(); i++)
                {
                    if (expected.getByte(i) != actual.getByte(i))
                    {
                        throw new AssertionError("fetch " + f + " byte " + i + " differs");
                    }
                }
                assertFalse(cancelled.contains(fetch.correlationId));
            }
        }
        assertTrue(inFlight.isEmpty(), "every fetch left the in-flight map");
    }

    static byte[] chunkMessage(
        final long correlationId,
        final long position,
        final long total,
        final int index,
        final UnsafeBuffer source,
        final int length)
    {
        final UnsafeBuffer message = new UnsafeBuffer(new byte[FrameHeader.LENGTH + length]);
        new FrameHeader().wrapForEncode(message, 0)
            .encode(FrameType.CHUNK, ErrorCode.OK, correlationId, position, total, index, length);
        message.putBytes(FrameHeader.LENGTH, source, (int) position, length);
        return message.byteArray();
    }

    static byte[] errorMessage(final long correlationId, final int code)
    {
        final String text = "deadline";
        final UnsafeBuffer message = new UnsafeBuffer(new byte[FrameHeader.LENGTH + text.length()]);
        new FrameHeader().wrapForEncode(message, 0)
            .encode(FrameType.ERROR, code, correlationId, 0, 0, 0, text.length());
        message.putStringWithoutLengthAscii(FrameHeader.LENGTH, text);
        return message.byteArray();
    }
}
