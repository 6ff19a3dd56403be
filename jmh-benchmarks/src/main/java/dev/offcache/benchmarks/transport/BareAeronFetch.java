package dev.offcache.benchmarks.transport;

import java.util.concurrent.TimeUnit;

import dev.offcache.testkit.net.LoopbackPorts;
import io.aeron.Aeron;
import io.aeron.ChannelUriStringBuilder;
import io.aeron.ExclusivePublication;
import io.aeron.Publication;
import io.aeron.Subscription;
import io.aeron.logbuffer.FragmentHandler;
import org.agrona.CloseHelper;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The floor of a fetch over Aeron, with none of the transport's code on the path: the caller offers an 8-byte
 * request on a publication; a server agent polls it and offers the payload, {@code chunkLength} bytes per message
 * (fragmented by Aeron into MTU-sized frames) straight from the mapped view, on an exclusive publication back; the
 * caller polls the response subscription itself and copies each fragment once into its direct buffer, yielding while
 * nothing arrives. No protocol header, no correlation, no handles: one payload, one fetch at a time. It runs on the
 * same Aeron client and embedded driver (same term length, MTU, window, threading and idle settings) as the
 * payload transport in the same trial, so what the transport costs above it is its own.
 */
final class BareAeronFetch implements AutoCloseable
{
    private static final int REQUEST_STREAM = 7101;
    private static final int RESPONSE_STREAM = 7102;
    private static final long CONNECT_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(10);

    private final Subscription requestSubscription;
    private final ExclusivePublication responsePublication;
    private final Publication requestPublication;
    private final Subscription responseSubscription;
    private final AgentRunner serverRunner;
    private final UnsafeBuffer request = new UnsafeBuffer(new byte[8]);
    private final FragmentHandler copier = this::onFragment;
    private final UnsafeBuffer destination;
    private int received;

    /**
     * Connects a bare request/response pair on {@code aeron}.
     *
     * @param aeron           the Aeron client (not owned).
     * @param udp             true for UDP on 127.0.0.1 (both ways), false for IPC.
     * @param payload         what the server sends for every request (not owned).
     * @param destination     where each fetch copies the payload (not owned).
     * @param chunkLength     payload bytes per message offered.
     * @param termLength      term length of the response publication.
     * @param mtu             MTU of the response publication.
     * @param serverIdle      idle strategy of the server agent.
     */
    BareAeronFetch(
        final Aeron aeron,
        final boolean udp,
        final UnsafeBuffer payload,
        final UnsafeBuffer destination,
        final int chunkLength,
        final int termLength,
        final int mtu,
        final IdleStrategy serverIdle)
    {
        this.destination = destination;
        final String requestChannel = udp ?
            new ChannelUriStringBuilder().media("udp").endpoint("127.0.0.1:" + LoopbackPorts.freeUdpPort()).build() :
            "aeron:ipc";
        final String responseChannel = udp ?
            new ChannelUriStringBuilder().media("udp").endpoint("127.0.0.1:" + LoopbackPorts.freeUdpPort())
                .mtu(mtu).termLength(termLength).build() :
            new ChannelUriStringBuilder().media("ipc").mtu(mtu).termLength(termLength).build();
        requestSubscription = aeron.addSubscription(requestChannel, REQUEST_STREAM);
        responseSubscription = aeron.addSubscription(responseChannel, RESPONSE_STREAM);
        responsePublication = aeron.addExclusivePublication(responseChannel, RESPONSE_STREAM);
        requestPublication = aeron.addPublication(requestChannel, REQUEST_STREAM);
        final long deadline = System.nanoTime() + CONNECT_TIMEOUT_NS;
        while (!requestPublication.isConnected() || !responsePublication.isConnected())
        {
            if (System.nanoTime() > deadline)
            {
                close();
                throw new IllegalStateException("bare Aeron pair did not connect: " + responseChannel);
            }
            Thread.yield();
        }
        serverRunner = new AgentRunner(serverIdle, Throwable::printStackTrace, null,
            new Server(requestSubscription, responsePublication, payload, chunkLength));
        AgentRunner.startOnThread(serverRunner);
    }

    /**
     * Requests the payload and polls it into the destination on the caller's thread.
     *
     * @param length the payload's length.
     * @return bytes received.
     */
    long fetch(final int length)
    {
        received = 0;
        while (requestPublication.offer(request, 0, 8) < 0)
        {
            Thread.yield();
        }
        while (received < length)
        {
            if (responseSubscription.poll(copier, 64) == 0)
            {
                Thread.yield();
            }
        }
        return received;
    }

    private void onFragment(final DirectBuffer buffer, final int offset, final int length,
        final io.aeron.logbuffer.Header header)
    {
        buffer.getBytes(offset, destination, received, length);
        received += length;
    }

    @Override
    public void close()
    {
        CloseHelper.closeAll(serverRunner, requestPublication, responseSubscription, responsePublication,
            requestSubscription);
    }

    /**
     * Answers every request with the whole payload, one message of {@code chunkLength} per duty cycle at most.
     */
    private static final class Server implements Agent
    {
        private final Subscription requests;
        private final ExclusivePublication responses;
        private final UnsafeBuffer payload;
        private final int chunkLength;
        private final FragmentHandler onRequest = this::onRequest;
        private int pending;
        private int sent;

        Server(final Subscription requests, final ExclusivePublication responses, final UnsafeBuffer payload,
            final int chunkLength)
        {
            this.requests = requests;
            this.responses = responses;
            this.payload = payload;
            this.chunkLength = Math.min(chunkLength, responses.maxMessageLength());
        }

        @Override
        public int doWork()
        {
            int work = requests.poll(onRequest, 16);
            if (pending > 0)
            {
                final int length = Math.min(chunkLength, payload.capacity() - sent);
                if (responses.offer(payload, sent, length) > 0)
                {
                    sent += length;
                    work++;
                    if (sent == payload.capacity())
                    {
                        sent = 0;
                        pending--;
                    }
                }
            }
            return work;
        }

        private void onRequest(final DirectBuffer buffer, final int offset, final int length,
            final io.aeron.logbuffer.Header header)
        {
            pending++;
        }

        @Override
        public String roleName()
        {
            return "bare-aeron-server";
        }
    }
}
