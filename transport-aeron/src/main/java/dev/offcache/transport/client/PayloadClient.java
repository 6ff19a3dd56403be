package dev.offcache.transport.client;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import dev.offcache.transport.media.TransportChannels;
import dev.offcache.transport.media.TransportContext;
import dev.offcache.transport.server.PayloadServer;
import dev.offcache.transport.wire.ErrorCode;
import dev.offcache.transport.wire.FrameHeader;
import org.agrona.CloseHelper;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;

/**
 * Fetches blocks and partitions from one {@link PayloadServer} over Aeron: many concurrent fetches share one
 * request publication and one response subscription, told apart by correlation id. A fetch lands either in a
 * caller-provided (off-heap) {@link MutableDirectBuffer} or, piece by piece, in a {@link ChunkHandler}; it ends
 * with its future completing with the payload length or failing with a {@link FetchException} (error frame,
 * timeout, lost connection). A caller waiting in {@code join()} or {@code get()} runs the client's duty cycle itself
 * while a response is coming and no other thread runs it; otherwise the client's agent thread does. Futures complete
 * on whichever thread runs it: keep continuations short, never wait for another fetch in one (refused with
 * {@link IllegalStateException}), or use the async variants. Thread-safe. Owns its publication and subscription;
 * not the {@link Aeron} client.
 */
public final class PayloadClient implements AutoCloseable
{
    private final Context ctx;
    private final ManyToOneConcurrentArrayQueue<Fetch> submissions;
    private final PayloadClientAgent agent;
    private final ClientDuty duty;
    private final AgentRunner runner;
    private final AtomicLong nextCorrelationId = new AtomicLong(1);
    private volatile boolean closed;
    private volatile boolean agentStopped;

    private PayloadClient(final Context ctx)
    {
        this.ctx = ctx;
        this.submissions = new ManyToOneConcurrentArrayQueue<>(ctx.maxQueuedFetches);
        this.agent = new PayloadClientAgent(ctx, submissions);
        this.duty = new ClientDuty(agent, submissions, ctx.idleStrategy());
        this.runner = duty.runner();
    }

    /**
     * Start a client. It connects in the background; fetches issued before the server answers wait for it
     * (within their timeout).
     *
     * @param ctx configuration; {@link Context#conclude()} is called here.
     * @return the client.
     */
    public static PayloadClient connect(final Context ctx)
    {
        ctx.conclude();
        final PayloadClient client = new PayloadClient(ctx);
        AgentRunner.startOnThread(client.runner);
        return client;
    }

    /**
     * Returns true while the server's response stream is connected.
     *
     * @return true while the server's response stream is connected.
     */
    public boolean isConnected()
    {
        return agent.isConnected();
    }

    /**
     * How many times the client's agent thread has passed its duty cycle (each wake-up, spin or yield of it), for
     * tests that count them.
     *
     * @return passes so far.
     */
    long agentThreadPasses()
    {
        return duty.agentThreadPasses();
    }

    /**
     * Fetch a whole block into {@code destination} at {@code destinationOffset}, with the default timeout.
     *
     * @param id                block or partition id (ASCII).
     * @param destination       where the bytes go; must have room for the whole block.
     * @param destinationOffset first byte written.
     * @return completes with the number of bytes written.
     */
    public CompletableFuture<Long> fetch(
        final String id, final MutableDirectBuffer destination, final int destinationOffset)
    {
        return fetch(id, 0, -1, destination, destinationOffset, ctx.fetchTimeoutNs);
    }

    /**
     * Fetch a byte range into {@code destination}.
     *
     * @param id                block or partition id (ASCII).
     * @param offset            first byte of the block wanted.
     * @param length            bytes wanted, or -1 for everything from {@code offset}.
     * @param destination       where the bytes go.
     * @param destinationOffset first byte written.
     * @param timeoutNs         deadline for the whole response, from when the client agent takes the fetch.
     * @return completes with the number of bytes written.
     */
    public CompletableFuture<Long> fetch(
        final String id,
        final long offset,
        final long length,
        final MutableDirectBuffer destination,
        final int destinationOffset,
        final long timeoutNs)
    {
        if (destination == null || destinationOffset < 0 || destinationOffset > destination.capacity())
        {
            throw new IllegalArgumentException("destination offset " + destinationOffset +
                " outside the destination buffer");
        }
        return submit(new Fetch(checkId(id), checkOffset(offset), checkLength(length), destination,
            destinationOffset, null, checkTimeout(timeoutNs), duty));
    }

    /**
     * Stream a byte range to {@code handler}, fragment by fragment, with no copy on the client.
     *
     * @param id        block or partition id (ASCII).
     * @param offset    first byte of the block wanted.
     * @param length    bytes wanted, or -1 for everything from {@code offset}.
     * @param handler   receives the pieces in order on the client's thread.
     * @param timeoutNs deadline for the whole response.
     * @return completes with the payload length once the last piece was handled.
     */
    public CompletableFuture<Long> stream(
        final String id, final long offset, final long length, final ChunkHandler handler, final long timeoutNs)
    {
        if (handler == null)
        {
            throw new IllegalArgumentException("handler must not be null");
        }
        return submit(new Fetch(checkId(id), checkOffset(offset), checkLength(length), null, 0, handler,
            checkTimeout(timeoutNs), duty));
    }

    /**
     * Fail every outstanding fetch with {@link ErrorCode#CLIENT_CLOSED}, say GOODBYE to the server, close the
     * publication and subscription.
     */
    public void close()
    {
        closed = true;
        duty.closing();
        CloseHelper.close(runner);
        agentStopped = true;
        failQueuedAfterStop();
    }

    private void failQueuedAfterStop()
    {
        // Once the agent has stopped, callers racing close() and close() itself are the queue's consumers:
        // the lock keeps them one at a time, as the single-consumer queue requires.
        synchronized (submissions)
        {
            Fetch fetch;
            while ((fetch = submissions.poll()) != null)
            {
                fetch.fail(new FetchException(ErrorCode.CLIENT_CLOSED, "client closed: fetch " +
                    fetch.describe()));
            }
        }
    }

    private CompletableFuture<Long> submit(final Fetch fetch)
    {
        fetch.correlationId = nextCorrelationId.getAndIncrement();
        if (closed)
        {
            fetch.fail(new FetchException(ErrorCode.CLIENT_CLOSED, "client closed: fetch " + fetch.describe()));
        }
        else if (!submissions.offer(fetch))
        {
            fetch.fail(new FetchException(ErrorCode.CLIENT_OVERLOADED, ctx.maxQueuedFetches +
                " fetches already queued: fetch " + fetch.describe()));
        }
        else if (agentStopped)
        {
            failQueuedAfterStop();
        }
        else
        {
            duty.submitted(fetch); // sent from here if nobody runs the cycle; wakes the agent thread only if needed
        }
        return fetch.future;
    }

    private static String checkId(final String id)
    {
        if (id == null || id.isEmpty() || id.length() > FrameHeader.MAX_ID_LENGTH)
        {
            throw new IllegalArgumentException("id must be 1.." + FrameHeader.MAX_ID_LENGTH + " characters: " + id);
        }
        for (int i = 0; i < id.length(); i++)
        {
            if (id.charAt(i) > 127)
            {
                throw new IllegalArgumentException("id must be ASCII: " + id);
            }
        }
        return id;
    }

    private static long checkOffset(final long offset)
    {
        if (offset < 0)
        {
            throw new IllegalArgumentException("offset must be >= 0: " + offset);
        }
        return offset;
    }

    private static long checkLength(final long length)
    {
        if (length < -1)
        {
            throw new IllegalArgumentException("length must be >= 0, or -1 for the rest: " + length);
        }
        return length;
    }

    private static long checkTimeout(final long timeoutNs)
    {
        if (timeoutNs <= 0)
        {
            throw new IllegalArgumentException("timeoutNs must be positive: " + timeoutNs);
        }
        return timeoutNs;
    }

    /**
     * Configuration of a {@link PayloadClient}.
     */
    public static final class Context extends TransportContext<Context>
    {
        /**
         * Default response stream ids are {@code RESPONSE_STREAM_ID_BASE | (clientId & 0x3FFFF) << 12 | n}, where
         * clientId is the Aeron client id (unique per driver) and n counts PayloadClients in this process: unique
         * for up to 4096 PayloadClients per Aeron client, so several clients can share one driver over IPC.
         */
        public static final int RESPONSE_STREAM_ID_BASE = 0x4000_0000;
        private static final AtomicInteger CLIENTS_IN_PROCESS = new AtomicInteger();

        private String responseChannel;
        private int responseStreamId;
        private long fetchTimeoutNs = TimeUnit.SECONDS.toNanos(10);
        private long helloIntervalNs = TimeUnit.MILLISECONDS.toNanos(20);
        private int maxQueuedFetches = 4096;

        /** A context with the client's defaults: 64 response fragments per duty cycle, named "payload-client". */
        public Context()
        {
            super(64, "payload-client");
        }

        @Override
        protected Context self()
        {
            return this;
        }

        /**
         * Sets where this client receives responses. Defaults to {@code aeron:ipc} when the request
         *
         * @param channel where this client receives responses. Defaults to {@code aeron:ipc} when the request
         *                channel is IPC, else {@code aeron:udp?endpoint=127.0.0.1:0} (an ephemeral port, resolved
         *                before the client says HELLO).
         * @return this.
         */
        public Context responseChannel(final String channel)
        {
            this.responseChannel = channel;
            return this;
        }

        /**
         * Returns the response channel.
         *
         * @return the response channel.
         */
        public String responseChannel()
        {
            return responseChannel;
        }

        /**
         * Sets this client's response stream id; unique per client on one driver for IPC. Defaults to
         *
         * @param streamId this client's response stream id; must be unique per client on one driver for IPC.
         *                 Defaults to a unique id from {@link #RESPONSE_STREAM_ID_BASE}.
         * @return this.
         */
        public Context responseStreamId(final int streamId)
        {
            this.responseStreamId = streamId;
            return this;
        }

        /**
         * Returns the response stream id.
         *
         * @return the response stream id.
         */
        public int responseStreamId()
        {
            return responseStreamId;
        }

        /**
         * Sets default deadline of a fetch.
         *
         * @param timeoutNs default deadline of a fetch.
         * @return this.
         */
        public Context fetchTimeoutNs(final long timeoutNs)
        {
            this.fetchTimeoutNs = timeoutNs;
            return this;
        }

        /**
         * Returns default deadline of a fetch.
         *
         * @return default deadline of a fetch.
         */
        public long fetchTimeoutNs()
        {
            return fetchTimeoutNs;
        }

        /**
         * Sets how often HELLO is repeated until the server's response stream appears.
         *
         * @param intervalNs how often HELLO is repeated until the server's response stream appears.
         * @return this.
         */
        public Context helloIntervalNs(final long intervalNs)
        {
            this.helloIntervalNs = intervalNs;
            return this;
        }

        /**
         * Returns HELLO repeat interval.
         *
         * @return HELLO repeat interval.
         */
        public long helloIntervalNs()
        {
            return helloIntervalNs;
        }

        /**
         * Sets fetches queued between callers and the agent; more fail with CLIENT_OVERLOADED.
         *
         * @param max fetches queued between callers and the agent; more fail with CLIENT_OVERLOADED.
         * @return this.
         */
        public Context maxQueuedFetches(final int max)
        {
            this.maxQueuedFetches = max;
            return this;
        }

        /**
         * Sets the agent's role name suffix.
         *
         * @param name the agent's role name suffix.
         * @return this.
         */
        public Context clientName(final String name)
        {
            return name(name);
        }

        /**
         * Returns the client name.
         *
         * @return the client name.
         */
        public String clientName()
        {
            return name();
        }

        /**
         * Validate and fill defaults. Called by {@link PayloadClient#connect(Context)}.
         *
         * @return this.
         */
        public Context conclude()
        {
            concludeCommon();
            if (responseChannel == null)
            {
                responseChannel = TransportChannels.isIpc(requestChannel()) ?
                    TransportChannels.IPC : TransportChannels.udp("127.0.0.1", 0);
            }
            if (responseChannel.length() > FrameHeader.MAX_CHANNEL_LENGTH - 16)
            {
                throw new IllegalArgumentException("responseChannel too long: " + responseChannel);
            }
            if (responseStreamId == 0)
            {
                responseStreamId = RESPONSE_STREAM_ID_BASE | (int) (aeron().clientId() & 0x3FFFFL) << 12 |
                    (CLIENTS_IN_PROCESS.getAndIncrement() & 0xFFF);
            }
            if (fetchTimeoutNs <= 0 || helloIntervalNs <= 0)
            {
                throw new IllegalArgumentException("fetchTimeoutNs and helloIntervalNs must be positive");
            }
            if (maxQueuedFetches < 1 || fragmentLimit() < 1)
            {
                throw new IllegalArgumentException("maxQueuedFetches and fragmentLimit must be >= 1");
            }
            return this;
        }
    }
}
