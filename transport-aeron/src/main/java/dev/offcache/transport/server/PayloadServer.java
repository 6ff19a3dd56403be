package dev.offcache.transport.server;

import java.util.concurrent.TimeUnit;

import dev.offcache.core.agent.AgentErrors;
import dev.offcache.transport.media.AeronMedia;
import dev.offcache.transport.media.AgentHost;
import dev.offcache.transport.media.TransportChannels;
import dev.offcache.transport.media.TransportContext;
import dev.offcache.transport.source.PayloadSource;
import org.agrona.CloseHelper;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.IdleStrategy;

/**
 * Serves blocks and partitions from a {@link PayloadSource} over Aeron: FETCH requests arrive on one subscription,
 * each client gets its answers (CHUNK and ERROR frames) on its own exclusive publication. The work is one
 * {@link PayloadServerAgent} on its own {@link AgentRunner} thread, or on an {@link AgentHost} beside the embedded
 * driver. The server owns its subscription,
 * publications, counters and the handles it holds; it does not own the {@link Aeron} client or the source.
 */
public final class PayloadServer implements AutoCloseable
{
    private final Context ctx;
    private final PayloadServerAgent agent;
    private final AgentRunner runner;
    private AgentHost.Hosted hosted;

    private PayloadServer(final Context ctx)
    {
        this.ctx = ctx;
        this.agent = new PayloadServerAgent(ctx);
        // A failed duty cycle counts as a transport error (the counter the agent frees on close; the runner stops
        // counting once it is closed).
        this.runner = ctx.agentHost == null ?
            AgentErrors.runner(ctx.idleStrategy(), agent.counters().errors, agent) : null;
    }

    /**
     * Start a server.
     *
     * @param ctx configuration; {@link Context#conclude()} is called here.
     * @return the running server.
     */
    public static PayloadServer launch(final Context ctx)
    {
        ctx.conclude();
        final PayloadServer server = new PayloadServer(ctx);
        if (server.runner != null)
        {
            AgentRunner.startOnThread(server.runner);
        }
        else
        {
            // same error policy as under its own runner; a refused add closes the agent (subscription, counters)
            server.hosted = ctx.agentHost.add(server.agent, server.agent.counters().errors);
        }
        return server;
    }

    /**
     * Returns the server's counters (also readable from other processes through the driver's CnC file).
     *
     * @return the server's counters (also readable from other processes through the driver's CnC file).
     */
    public ServerCounters counters()
    {
        return agent.counters();
    }

    /**
     * Returns the configuration.
     *
     * @return the configuration.
     */
    public Context context()
    {
        return ctx;
    }

    /**
     * Stop the duty cycle, close every publication and the subscription, release every held handle, free the
     * counters. Clients with requests in flight see their response image go away.
     */
    public void close()
    {
        if (runner != null)
        {
            CloseHelper.close(runner);
        }
        else
        {
            hosted.close(); // returns once the agent's onClose ran on the host's thread
        }
    }

    /**
     * Configuration of a {@link PayloadServer}.
     */
    public static final class Context extends TransportContext<Context>
    {
        /** Default request stream id. */
        public static final int DEFAULT_REQUEST_STREAM_ID = TransportContext.DEFAULT_REQUEST_STREAM_ID;
        /** Default chunk payload: 256 KiB, small enough to interleave requests fairly, big enough to amortise. */
        public static final int DEFAULT_CHUNK_LENGTH = 256 * 1024;

        /**
         * Default MTU of UDP responses to a client on a loopback address: the largest Aeron allows, since loopback
         * carries 64 KiB datagrams unfragmented and every datagram costs a system call on both sides.
         */
        public static final int DEFAULT_LOOPBACK_MTU = 65504;

        private PayloadSource payloadSource;
        private AgentHost agentHost;
        private int chunkLength = DEFAULT_CHUNK_LENGTH;
        private int responseTermLength = AeronMedia.Context.DEFAULT_UDP_TERM_LENGTH;
        private int responseUdpMtu = AeronMedia.Context.DEFAULT_UDP_MTU;
        private int responseLoopbackMtu = DEFAULT_LOOPBACK_MTU;
        private int responseIpcMtu = AeronMedia.Context.DEFAULT_IPC_MTU;
        private int maxInFlightRequests = 256;
        private int maxInFlightPerClient = 64;
        private long requestTimeoutNs = TimeUnit.SECONDS.toNanos(30);

        /** A context with the server's defaults: 32 request fragments per duty cycle, named "payload-server". */
        public Context()
        {
            super(32, "payload-server");
        }

        @Override
        protected Context self()
        {
            return this;
        }

        /**
         * Sets resolves ids to bytes (not owned).
         *
         * @param source resolves ids to bytes (not owned).
         * @return this.
         */
        public Context payloadSource(final PayloadSource source)
        {
            this.payloadSource = source;
            return this;
        }

        /**
         * Returns the payload source.
         *
         * @return the payload source.
         */
        public PayloadSource payloadSource()
        {
            return payloadSource;
        }

        /**
         * Sets the thread the duty cycle runs on: an {@link AeronMedia#agentHost()} (the embedded driver's thread in
         * {@code ThreadingMode.INVOKER}), or null (default) for a thread of the server's own.
         *
         * @param host the host, not owned; its idle strategy applies instead of {@link #idleStrategy(IdleStrategy)}.
         * @return this.
         */
        public Context agentHost(final AgentHost host)
        {
            this.agentHost = host;
            return this;
        }

        /**
         * Returns the agent host, or null for a thread of the server's own.
         *
         * @return the agent host, or null.
         */
        public AgentHost agentHost()
        {
            return agentHost;
        }

        /**
         * Sets payload bytes per CHUNK frame (cut further to fit the publication's max message).
         *
         * @param length payload bytes per CHUNK frame (cut further to fit the publication's max message).
         * @return this.
         */
        public Context chunkLength(final int length)
        {
            this.chunkLength = length;
            return this;
        }

        /**
         * Returns payload bytes per CHUNK frame.
         *
         * @return payload bytes per CHUNK frame.
         */
        public int chunkLength()
        {
            return chunkLength;
        }

        /**
         * Sets term length of each response publication.
         *
         * @param termLength term length of each response publication.
         * @return this.
         */
        public Context responseTermLength(final int termLength)
        {
            this.responseTermLength = termLength;
            return this;
        }

        /**
         * Returns term length of each response publication.
         *
         * @return term length of each response publication.
         */
        public int responseTermLength()
        {
            return responseTermLength;
        }

        /**
         * Sets MTU of UDP response publications.
         *
         * @param mtu MTU of UDP response publications.
         * @return this.
         */
        public Context responseUdpMtu(final int mtu)
        {
            this.responseUdpMtu = mtu;
            return this;
        }

        /**
         * Sets the MTU of UDP response publications to clients whose response endpoint is a loopback address
         * ({@link TransportChannels#isLoopback}); {@link #responseUdpMtu} applies to every other UDP client.
         *
         * @param mtu MTU of UDP responses on loopback.
         * @return this.
         */
        public Context responseLoopbackMtu(final int mtu)
        {
            this.responseLoopbackMtu = mtu;
            return this;
        }

        /**
         * Sets MTU of IPC response publications.
         *
         * @param mtu MTU of IPC response publications.
         * @return this.
         */
        public Context responseIpcMtu(final int mtu)
        {
            this.responseIpcMtu = mtu;
            return this;
        }

        /**
         * The channel a response publication uses.
         *
         * @param channel a client's response channel.
         * @return the channel with this server's term length and MTU.
         */
        public String responsePublicationChannel(final String channel)
        {
            final int mtu = TransportChannels.isIpc(channel) ? responseIpcMtu :
                TransportChannels.isLoopback(channel) ? responseLoopbackMtu : responseUdpMtu;
            return TransportChannels.withTermLengthAndMtu(channel, responseTermLength, mtu);
        }

        /**
         * Sets requests served at once over all clients; more are answered OVERLOADED.
         *
         * @param max requests served at once over all clients; more are answered OVERLOADED.
         * @return this.
         */
        public Context maxInFlightRequests(final int max)
        {
            this.maxInFlightRequests = max;
            return this;
        }

        /**
         * Returns requests served at once over all clients.
         *
         * @return requests served at once over all clients.
         */
        public int maxInFlightRequests()
        {
            return maxInFlightRequests;
        }

        /**
         * Sets requests served at once for one client; more are answered OVERLOADED.
         *
         * @param max requests served at once for one client; more are answered OVERLOADED.
         * @return this.
         */
        public Context maxInFlightPerClient(final int max)
        {
            this.maxInFlightPerClient = max;
            return this;
        }

        /**
         * Returns requests served at once for one client.
         *
         * @return requests served at once for one client.
         */
        public int maxInFlightPerClient()
        {
            return maxInFlightPerClient;
        }

        /**
         * Sets how long the server keeps trying to finish one response (back-pressure included).
         *
         * @param timeoutNs how long the server keeps trying to finish one response (back-pressure included).
         * @return this.
         */
        public Context requestTimeoutNs(final long timeoutNs)
        {
            this.requestTimeoutNs = timeoutNs;
            return this;
        }

        /**
         * Returns the per-request deadline in nanoseconds.
         *
         * @return the per-request deadline in nanoseconds.
         */
        public long requestTimeoutNs()
        {
            return requestTimeoutNs;
        }

        /**
         * Sets used in counter labels and the agent's role name.
         *
         * @param name used in counter labels and the agent's role name.
         * @return this.
         */
        public Context serverName(final String name)
        {
            return name(name);
        }

        /**
         * Returns the server name.
         *
         * @return the server name.
         */
        public String serverName()
        {
            return name();
        }

        /**
         * Validate. Called by {@link PayloadServer#launch(Context)}.
         *
         * @return this.
         */
        public Context conclude()
        {
            concludeCommon();
            if (payloadSource == null)
            {
                throw new IllegalArgumentException("payloadSource must be set");
            }
            if (chunkLength < 1024)
            {
                throw new IllegalArgumentException("chunkLength must be at least 1024: " + chunkLength);
            }
            TransportChannels.checkTermLength("responseTermLength", responseTermLength);
            TransportChannels.checkMtu("responseUdpMtu", responseUdpMtu);
            TransportChannels.checkMtu("responseIpcMtu", responseIpcMtu);
            TransportChannels.checkMtu("responseLoopbackMtu", responseLoopbackMtu);
            if (maxInFlightRequests < 1 || maxInFlightPerClient < 1)
            {
                throw new IllegalArgumentException("maxInFlightRequests and maxInFlightPerClient must be >= 1: " +
                    maxInFlightRequests + ", " + maxInFlightPerClient);
            }
            if (requestTimeoutNs <= 0)
            {
                throw new IllegalArgumentException("requestTimeoutNs must be positive: " + requestTimeoutNs);
            }
            if (fragmentLimit() < 1)
            {
                throw new IllegalArgumentException("fragmentLimit must be >= 1: " + fragmentLimit());
            }
            return this;
        }
    }
}
