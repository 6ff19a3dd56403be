package dev.offcache.transport.media;

import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;

import dev.offcache.core.config.ConcludeOnce;
import dev.offcache.core.media.EmbeddedDrivers;
import io.aeron.Aeron;
import io.aeron.driver.MediaDriver;
import io.aeron.driver.ThreadingMode;
import org.agrona.CloseHelper;
import org.agrona.concurrent.IdleStrategy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An Aeron client connected either to an embedded media driver this object launches and owns (the default), or
 * to an external media driver already running in {@link Context#aeronDirectoryName(String)}. Closing it closes
 * the client, then the embedded driver, and deletes the embedded driver's directory.
 */
public final class AeronMedia implements AutoCloseable
{
    private static final Logger LOG = LoggerFactory.getLogger(AeronMedia.class);

    private final Context ctx;
    private final MediaDriver driver;
    private final AgentHost agentHost;
    private final Aeron aeron;
    private final String aeronDirectoryName;

    private AeronMedia(final Context ctx)
    {
        this.ctx = ctx;
        MediaDriver launched = null;
        if (ctx.aeronDirectoryName == null)
        {
            launched = launchEmbedded(ctx, EmbeddedDrivers.uniqueDirectoryName());
        }
        this.driver = launched;
        this.aeronDirectoryName = launched != null ? launched.aeronDirectoryName() : ctx.aeronDirectoryName;
        AgentHost host = null;
        try
        {
            // INVOKER: the driver's agents run on the host's thread, with whatever agents are handed to it.
            if (launched != null && ctx.threadingMode == ThreadingMode.INVOKER)
            {
                host = new AgentHost(launched.sharedAgentInvoker(), ctx.driverIdleStrategy.get());
            }
            this.agentHost = host;
            this.aeron = Aeron.connect(new Aeron.Context()
                .aeronDirectoryName(aeronDirectoryName)
                .driverTimeoutMs(ctx.driverTimeoutMs));
        }
        catch (final RuntimeException ex)
        {
            CloseHelper.quietClose(host);
            closeDriver();
            throw ex;
        }
    }

    /**
     * Launch (or connect to) a media driver and connect a client to it.
     *
     * @param ctx the configuration; {@link Context#conclude()} is called here.
     * @return the running media.
     */
    public static AeronMedia launch(final Context ctx)
    {
        ctx.conclude();
        return new AeronMedia(ctx);
    }

    /**
     * Returns the connected Aeron client; owned by this object, do not close it.
     *
     * @return the connected Aeron client; owned by this object, do not close it.
     */
    public Aeron aeron()
    {
        return aeron;
    }

    /**
     * Returns the media driver directory in use.
     *
     * @return the media driver directory in use.
     */
    public String aeronDirectoryName()
    {
        return aeronDirectoryName;
    }

    /**
     * Returns the thread that runs the embedded driver in {@code ThreadingMode.INVOKER}, to which payload servers can
     * be handed ({@code PayloadServer.Context.agentHost}); null in other modes and for an external driver.
     *
     * @return the agent host, or null.
     */
    public AgentHost agentHost()
    {
        return agentHost;
    }

    /**
     * Returns true if this object launched the driver and will shut it down on close.
     *
     * @return true if this object launched the driver and will shut it down on close.
     */
    public boolean isEmbedded()
    {
        return driver != null;
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
     * Close the client, then the embedded driver (if any), then delete the embedded driver directory.
     */
    public void close()
    {
        // the host first: agents on it (payload servers) close against a live client; then the client, then the
        // driver (whose close closes the invoker)
        CloseHelper.quietClose(agentHost);
        CloseHelper.quietClose(aeron);
        closeDriver();
    }

    private void closeDriver()
    {
        if (driver != null)
        {
            EmbeddedDrivers.close(driver, driver.aeronDirectoryName());
        }
    }

    private static MediaDriver launchEmbedded(final Context ctx, final String dir)
    {
        final int window = ctx.effectiveWindowLength();
        return EmbeddedDrivers.launch(EmbeddedDrivers.context(dir, ctx.threadingMode, ctx.driverIdleStrategy)
            .publicationTermBufferLength(ctx.udpTermLength)
            .ipcTermBufferLength(ctx.ipcTermLength)
            .mtuLength(ctx.udpMtu)
            .ipcMtuLength(ctx.ipcMtu)
            .initialWindowLength(window)
            .socketRcvbufLength(window)
            .socketSndbufLength(window)
            .publicationLingerTimeoutNs(ctx.publicationLingerTimeoutNs)
            .imageLivenessTimeoutNs(ctx.imageLivenessTimeoutNs));
    }

    /**
     * Configuration of an {@link AeronMedia}. Setters return this; {@link #conclude()} validates.
     */
    public static final class Context
    {
        /** Default term length of UDP publications: 16 MiB, so one message can be up to 2 MiB. */
        public static final int DEFAULT_UDP_TERM_LENGTH = 16 * 1024 * 1024;
        /** Default term length of IPC publications: 16 MiB. */
        public static final int DEFAULT_IPC_TERM_LENGTH = 16 * 1024 * 1024;
        /** Default UDP MTU: 8 KiB (loopback and jumbo-frame networks; use 1408 on a 1500-byte MTU network). */
        public static final int DEFAULT_UDP_MTU = 8 * 1024;
        /** Default IPC MTU: the largest Aeron allows, so a 256 KiB chunk is only 5 fragments. */
        public static final int DEFAULT_IPC_MTU = 65504;
        /**
         * Default UDP receiver window and socket buffer length, lowered to the kernel's limits: 4 MiB, since a 1 MiB
         * fetch over loopback took about 0.6-0.8x the time of the 2 MiB window's (docs/transport-aeron.md).
         */
        public static final int DEFAULT_INITIAL_WINDOW_LENGTH = 4 * 1024 * 1024;
        /** Environment variable naming an external media driver directory. */
        public static final String ENV_AERON_DIR = "OFFCACHE_AERON_DIR";
        /**
         * Environment variable choosing the embedded driver's threading mode (INVOKER, SHARED, SHARED_NETWORK,
         * DEDICATED).
         */
        public static final String ENV_THREADING_MODE = "OFFCACHE_AERON_THREADING_MODE";

        private String aeronDirectoryName;
        private ThreadingMode threadingMode = ThreadingMode.SHARED;
        private Supplier<? extends IdleStrategy> driverIdleStrategy = AgentIdle::standard;
        private int udpTermLength = DEFAULT_UDP_TERM_LENGTH;
        private int ipcTermLength = DEFAULT_IPC_TERM_LENGTH;
        private int udpMtu = DEFAULT_UDP_MTU;
        private int ipcMtu = DEFAULT_IPC_MTU;
        private int initialWindowLength = DEFAULT_INITIAL_WINDOW_LENGTH;
        private boolean initialWindowLengthSet;
        private long publicationLingerTimeoutNs = 1_000_000_000L;
        private long imageLivenessTimeoutNs = 10_000_000_000L;
        private long driverTimeoutMs = 10_000;
        private final ConcludeOnce concluded = new ConcludeOnce();

        /**
         * A context configured from the process environment: {@value #ENV_AERON_DIR} (external driver directory;
         * unset = embedded) and {@value #ENV_THREADING_MODE}.
         *
         * @return a new context.
         * @throws IllegalArgumentException naming the variable if a value is invalid.
         */
        public static Context fromEnvironment()
        {
            return fromEnvironment(System.getenv());
        }

        /**
         * A context configured from the given environment (see {@link #fromEnvironment()}).
         *
         * @param env variables.
         * @return a new context.
         * @throws IllegalArgumentException naming the variable if a value is invalid.
         */
        public static Context fromEnvironment(final Map<String, String> env)
        {
            final Context ctx = new Context();
            final String dir = env.get(ENV_AERON_DIR);
            if (dir != null)
            {
                if (dir.isBlank())
                {
                    throw new IllegalArgumentException(ENV_AERON_DIR + " must name a directory, not be blank");
                }
                ctx.aeronDirectoryName(dir);
            }
            final String mode = env.get(ENV_THREADING_MODE);
            if (mode != null)
            {
                try
                {
                    ctx.threadingMode(ThreadingMode.valueOf(mode.trim().toUpperCase(Locale.ROOT)));
                }
                catch (final IllegalArgumentException ex)
                {
                    throw new IllegalArgumentException(ENV_THREADING_MODE +
                        " must be SHARED, SHARED_NETWORK or DEDICATED: '" + mode + "'", ex);
                }
            }
            return ctx;
        }

        /**
         * Use an external media driver in this directory instead of launching one. Null (the default) launches
         * an embedded driver under {@code /dev/shm/aeron-offcache-*}.
         *
         * @param aeronDirectoryName the external driver's {@code aeron.dir}.
         * @return this.
         */
        public Context aeronDirectoryName(final String aeronDirectoryName)
        {
            this.aeronDirectoryName = aeronDirectoryName;
            return this;
        }

        /**
         * Returns the external driver directory, or null for an embedded driver.
         *
         * @return the external driver directory, or null for an embedded driver.
         */
        public String aeronDirectoryName()
        {
            return aeronDirectoryName;
        }

        /**
         * Sets the embedded driver's threading mode.
         *
         * @param threadingMode the embedded driver's threading mode: SHARED (default, one thread), INVOKER (one
         *                      thread, the {@link AgentHost}, that payload servers can share), or more threads
         *                      (SHARED_NETWORK, DEDICATED) for cores to spare.
         * @return this.
         */
        public Context threadingMode(final ThreadingMode threadingMode)
        {
            this.threadingMode = threadingMode;
            return this;
        }

        /**
         * Sets how the embedded driver's agents idle: the factory is asked once per agent (one in SHARED, two in
         * SHARED_NETWORK, three in DEDICATED), since an idle strategy keeps per-thread state. Default
         * {@link AgentIdle#standard()}.
         *
         * @param idleStrategy creates a new idle strategy per call.
         * @return this.
         */
        public Context driverIdleStrategy(final Supplier<? extends IdleStrategy> idleStrategy)
        {
            this.driverIdleStrategy = idleStrategy;
            return this;
        }

        /**
         * Sets default term length of UDP publications on the embedded driver (power of two).
         *
         * @param termLength default term length of UDP publications on the embedded driver (power of two).
         * @return this.
         */
        public Context udpTermLength(final int termLength)
        {
            this.udpTermLength = termLength;
            return this;
        }

        /**
         * Sets default term length of IPC publications on the embedded driver (power of two).
         *
         * @param termLength default term length of IPC publications on the embedded driver (power of two).
         * @return this.
         */
        public Context ipcTermLength(final int termLength)
        {
            this.ipcTermLength = termLength;
            return this;
        }

        /**
         * Sets default MTU of UDP publications on the embedded driver.
         *
         * @param mtu default MTU of UDP publications on the embedded driver.
         * @return this.
         */
        public Context udpMtu(final int mtu)
        {
            this.udpMtu = mtu;
            return this;
        }

        /**
         * Sets default MTU of IPC publications on the embedded driver.
         *
         * @param mtu default MTU of IPC publications on the embedded driver.
         * @return this.
         */
        public Context ipcMtu(final int mtu)
        {
            this.ipcMtu = mtu;
            return this;
        }

        /**
         * Sets the receiver window of the embedded driver (bytes in flight per UDP stream before a status message);
         * the UDP socket buffers get the same size. Set explicitly, it is used as is: the kernel caps socket buffers
         * at {@code net.core.rmem_max} / {@code wmem_max} (Aeron then only warns), and a window larger than the
         * real receive buffer loses datagrams. Left at its default ({@value #DEFAULT_INITIAL_WINDOW_LENGTH}), it is
         * lowered to what the kernel allows.
         *
         * @param length the window in bytes, at least 64 KiB.
         * @return this.
         */
        public Context initialWindowLength(final int length)
        {
            this.initialWindowLength = length;
            this.initialWindowLengthSet = true;
            return this;
        }

        /**
         * The window (and socket buffer length) the embedded driver gets: the configured one, or the default
         * lowered to the kernel's socket buffer limits.
         *
         * @return bytes.
         */
        public int effectiveWindowLength()
        {
            if (initialWindowLengthSet)
            {
                return initialWindowLength;
            }
            final long limit = SocketBufferLimits.maxBufferLength();
            if (limit >= initialWindowLength)
            {
                return initialWindowLength;
            }
            final int capped = Math.max(64 * 1024, Integer.highestOneBit((int) limit));
            LOG.info("UDP window lowered from {} to {} bytes: net.core.rmem_max / wmem_max allow {} " +
                "(raise them to {} for full UDP throughput)", initialWindowLength, capped, limit,
                initialWindowLength);
            return capped;
        }

        /**
         * Sets how long a closed publication lingers in the embedded driver.
         *
         * @param timeoutNs how long a closed publication lingers in the embedded driver.
         * @return this.
         */
        public Context publicationLingerTimeoutNs(final long timeoutNs)
        {
            this.publicationLingerTimeoutNs = timeoutNs;
            return this;
        }

        /**
         * Sets how long an image without data or heartbeats stays available in the embedded driver.
         *
         * @param timeoutNs how long an image without data or heartbeats stays available in the embedded driver.
         * @return this.
         */
        public Context imageLivenessTimeoutNs(final long timeoutNs)
        {
            this.imageLivenessTimeoutNs = timeoutNs;
            return this;
        }

        /**
         * Sets how long the client waits for the driver to answer before giving up.
         *
         * @param timeoutMs how long the client waits for the driver to answer before giving up.
         * @return this.
         */
        public Context driverTimeoutMs(final long timeoutMs)
        {
            this.driverTimeoutMs = timeoutMs;
            return this;
        }

        /**
         * Validate the configuration. Called by {@link AeronMedia#launch(Context)}.
         *
         * @return this.
         */
        public Context conclude()
        {
            concluded.conclude(this);
            TransportChannels.checkTermLength("udpTermLength", udpTermLength);
            TransportChannels.checkTermLength("ipcTermLength", ipcTermLength);
            TransportChannels.checkMtu("udpMtu", udpMtu);
            TransportChannels.checkMtu("ipcMtu", ipcMtu);
            if (threadingMode == null || driverIdleStrategy == null)
            {
                throw new IllegalArgumentException("threadingMode and driverIdleStrategy must not be null");
            }
            if (publicationLingerTimeoutNs <= 0 || imageLivenessTimeoutNs <= 0 || driverTimeoutMs <= 0)
            {
                throw new IllegalArgumentException("timeouts must be positive");
            }
            if (initialWindowLength < 64 * 1024)
            {
                throw new IllegalArgumentException("initialWindowLength must be at least 64 KiB: " +
                    initialWindowLength);
            }
            if (aeronDirectoryName != null && aeronDirectoryName.isBlank())
            {
                throw new IllegalArgumentException("aeronDirectoryName must not be blank");
            }
            return this;
        }
    }
}
