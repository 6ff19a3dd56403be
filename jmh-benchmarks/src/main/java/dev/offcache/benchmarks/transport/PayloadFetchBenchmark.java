package dev.offcache.benchmarks.transport;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import dev.offcache.core.region.MappedRegion;
import dev.offcache.testkit.net.LoopbackPorts;
import dev.offcache.transport.client.PayloadClient;
import dev.offcache.transport.media.AeronMedia;
import dev.offcache.transport.media.AgentIdle;
import dev.offcache.transport.media.TransportChannels;
import dev.offcache.transport.server.PayloadServer;
import dev.offcache.transport.source.DirectBufferPayloadSource;
import io.aeron.driver.ThreadingMode;
import io.aeron.driver.status.SystemCounterDescriptor;
import org.agrona.concurrent.status.CountersReader;
import org.agrona.BufferUtil;
import org.agrona.CloseHelper;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.BusySpinIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.YieldingIdleStrategy;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Fetching one payload, request to last byte in the caller's off-heap buffer: the Aeron payload server over IPC and
 * over UDP (127.0.0.1) against its baseline, a plain Netty TCP request/response server on 127.0.0.1, all serving
 * the same bytes from the same mapped file. Each fetch is sampled (SampleTime): at 4 KiB the p50/p99 are the
 * latency; at 1 MiB and 16 MiB ({@code -p payloadBytes=4096,1048576,16777216}) the size over the mean time is
 * the throughput of back-to-back fetches. One benchmark method, so the smoke run is one fork per transport. One fetch
 * at a time on one connection. The Aeron side runs with the module's defaults (embedded media driver, idle
 * strategies, MTU, term length, chunking, window); the {@code aeron*} parameters override one setting each, which
 * is how docs/transport-aeron.md's tuning table was measured ({@code -p impl=offcache-aeron-udp -p aeronUdpMtu=8192}).
 * Like every offcache process, it uses an external media driver instead when {@code OFFCACHE_AERON_DIR} names one
 * (the driver's own settings then apply; that is how the C media driver was measured).
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 2)
@Fork(1)
public class PayloadFetchBenchmark
{
    private static final String ID = "block";
    private static final String BARE = "aeron-bare";

    /**
     * A mapped file served over one of the transports.
     */
    @State(Scope.Benchmark)
    public static class Fixture
    {
        /**
         * Which transport carries the fetch: {@code offcache-aeron-ipc}, {@code offcache-aeron-udp}, the floor of
         * Aeron itself on the same driver and channels ({@code aeron-bare-ipc}, {@code aeron-bare-udp}:
         * {@link BareAeronFetch}) or the {@code netty-tcp} baseline (the {@code impl} parameter of the report's
         * pairing convention).
         */
        @Param({"offcache-aeron-ipc", "offcache-aeron-udp", "aeron-bare-ipc", "aeron-bare-udp", "netty-tcp"})
        public String impl;

        /**
         * Longest park, in microseconds, of the Aeron agents' (driver, server, client) BackoffIdleStrategy; 0 keeps
         * the module defaults. Netty's event loops block in epoll instead and wake on data.
         */
        @Param({"0"})
        public int aeronMaxParkMicros;

        /**
         * MTU of the Aeron UDP response publications (loopback or not); 0 keeps the module defaults.
         */
        @Param({"0"})
        public int aeronUdpMtu;

        /**
         * Term length of the Aeron response publications; 0 keeps the module default.
         */
        @Param({"0"})
        public int aeronTermLength;

        /**
         * Payload per CHUNK message of the Aeron server; 0 keeps the module default.
         */
        @Param({"0"})
        public int aeronChunkLength;

        /**
         * UDP receiver window and socket buffer lengths of the embedded driver; 0 keeps the module default.
         */
        @Param({"0"})
        public int aeronWindow;

        /**
         * Threading mode of the embedded media driver ({@code INVOKER}, {@code SHARED}, {@code SHARED_NETWORK},
         * {@code DEDICATED}), or {@code default}. With INVOKER the server runs on the driver's thread.
         */
        @Param({"default"})
        public String aeronThreading;

        /**
         * Idle strategy of every embedded driver agent: {@code default} (the module's), {@code yielding},
         * {@code busyspin} or {@code backoff} (Aeron's own default, parking up to 1 ms).
         */
        @Param({"default"})
        public String aeronDriverIdle;

        private Path file;
        private MappedRegion region;
        private AeronMedia media;
        private PayloadServer aeronServer;
        private PayloadClient aeronClient;
        private BareAeronFetch bareAeron;
        private NettyPayloadServer nettyServer;
        private NettyPayloadClient nettyClient;
        private ByteBuffer destinationBytes;
        private UnsafeBuffer destination;
        private int size;
        private long fetches;
        private long cpuStartNs;

        /**
         * Block size in bytes: 4 KiB for latency; 1 MiB and 16 MiB for throughput via
         * {@code -p payloadBytes=4096,1048576,16777216} (kept small by default so the smoke run stays short).
         */
        @Param({"4096"})
        public int payloadBytes;

        /**
         * Writes a file of pseudo-random bytes, maps it, starts the server and client of the chosen transport.
         *
         * @throws IOException if the file cannot be written.
         */
        @Setup(Level.Trial)
        public void setUp() throws IOException
        {
            size = payloadBytes;
            cpuStartNs = processCpuNs();
            file = Files.createTempFile("offcache-transport-bench", ".data");
            writeRandom(file, size);
            region = MappedRegion.mapExistingFile(file, true);
            final UnsafeBuffer mapped = region.view(0, size);
            destinationBytes = ByteBuffer.allocateDirect(size);
            destination = new UnsafeBuffer(destinationBytes);
            if (impl.startsWith("offcache-aeron") || impl.startsWith(BARE))
            {
                final AeronMedia.Context mediaContext = AeronMedia.Context.fromEnvironment();
                final PayloadServer.Context serverContext = new PayloadServer.Context();
                final PayloadClient.Context clientContext = new PayloadClient.Context();
                if (aeronMaxParkMicros > 0)
                {
                    mediaContext.driverIdleStrategy(this::idle);
                    serverContext.idleStrategy(idle());
                    clientContext.idleStrategy(idle());
                }
                if (!"default".equals(aeronDriverIdle))
                {
                    mediaContext.driverIdleStrategy(this::driverIdle);
                }
                if (aeronUdpMtu > 0)
                {
                    serverContext.responseUdpMtu(aeronUdpMtu).responseLoopbackMtu(aeronUdpMtu);
                }
                if (aeronTermLength > 0)
                {
                    serverContext.responseTermLength(aeronTermLength);
                }
                if (aeronChunkLength > 0)
                {
                    serverContext.chunkLength(aeronChunkLength);
                }
                if (aeronWindow > 0)
                {
                    mediaContext.initialWindowLength(aeronWindow);
                }
                if (!"default".equals(aeronThreading))
                {
                    mediaContext.threadingMode(ThreadingMode.valueOf(aeronThreading));
                }
                media = AeronMedia.launch(mediaContext);
                if (impl.startsWith(BARE))
                {
                    final boolean udp = impl.endsWith("udp");
                    bareAeron = new BareAeronFetch(media.aeron(), udp, mapped, destination,
                        aeronChunkLength > 0 ? aeronChunkLength : PayloadServer.Context.DEFAULT_CHUNK_LENGTH,
                        aeronTermLength > 0 ? aeronTermLength : AeronMedia.Context.DEFAULT_UDP_TERM_LENGTH,
                        udp && aeronUdpMtu > 0 ? aeronUdpMtu : PayloadServer.Context.DEFAULT_LOOPBACK_MTU,
                        aeronMaxParkMicros > 0 ? idle() : AgentIdle.standard());
                }
                else
                {
                    launchPayloadTransport(serverContext, clientContext, mapped);
                }
            }
            else if ("netty-tcp".equals(impl))
            {
                nettyServer = new NettyPayloadServer();
                nettyServer.register(ID, mapped);
                nettyClient = new NettyPayloadClient(nettyServer.port());
            }
            else
            {
                throw new IllegalArgumentException("unknown impl: " + impl);
            }
            final long fetched = fetch();
            if (fetched != size || destination.getLong(0) != mapped.getLong(0) ||
                destination.getByte(size - 1) != mapped.getByte(size - 1))
            {
                throw new IllegalStateException(impl + " fetched wrong bytes in the warm-up check");
            }
        }

        /**
         * Stops client and server, unmaps and deletes the file.
         *
         * @throws IOException if the file cannot be deleted.
         */
        @TearDown(Level.Trial)
        public void tearDown() throws IOException
        {
            // CPU per fetch of the whole JVM (client, server, driver or event loops): what the threads of one fetch
            // cost, which a loaded machine's scheduling stretches far less than it stretches the time per fetch.
            System.out.printf(Locale.ROOT, "%s cpu per fetch: %.1f us (%d fetches)%n", impl,
                (processCpuNs() - cpuStartNs) / 1e3 / Math.max(1, fetches), fetches);
            if (media != null)
            {
                printDriverCounters();
            }
            CloseHelper.closeAll(bareAeron, aeronClient, aeronServer, media, nettyClient, nettyServer, region);
            Files.deleteIfExists(file);
        }

        private void launchPayloadTransport(
            final PayloadServer.Context serverContext, final PayloadClient.Context clientContext,
            final UnsafeBuffer mapped)
        {
            final String channel = "offcache-aeron-ipc".equals(impl) ? TransportChannels.IPC :
                TransportChannels.udp("127.0.0.1", LoopbackPorts.freeUdpPort());
            aeronServer = PayloadServer.launch(serverContext.aeron(media.aeron()).agentHost(media.agentHost())
                .requestChannel(channel).payloadSource(new DirectBufferPayloadSource().register(ID, mapped)));
            aeronClient = PayloadClient.connect(clientContext.aeron(media.aeron()).requestChannel(channel));
        }

        private static long processCpuNs()
        {
            return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
        }

        private IdleStrategy driverIdle()
        {
            switch (aeronDriverIdle)
            {
                case "yielding":
                    return new YieldingIdleStrategy();
                case "busyspin":
                    return new BusySpinIdleStrategy();
                case "backoff":
                    return new BackoffIdleStrategy();
                default:
                    throw new IllegalArgumentException("unknown aeronDriverIdle: " + aeronDriverIdle);
            }
        }

        private IdleStrategy idle()
        {
            return new BackoffIdleStrategy(10, 20, 1_000, TimeUnit.MICROSECONDS.toNanos(aeronMaxParkMicros));
        }

        /**
         * What the embedded driver did per fetch: datagrams lost and resent, and how often flow control held the
         * sender, which timings alone cannot tell apart from a busy machine's scheduling.
         */
        private void printDriverCounters()
        {
            final CountersReader counters = media.aeron().countersReader();
            final StringBuilder line = new StringBuilder("aeron driver per fetch (" + fetches + " fetches):");
            for (final SystemCounterDescriptor counter : new SystemCounterDescriptor[] {
                SystemCounterDescriptor.NAK_MESSAGES_SENT, SystemCounterDescriptor.RETRANSMITS_SENT,
                SystemCounterDescriptor.LOSS_GAP_FILLS, SystemCounterDescriptor.SENDER_FLOW_CONTROL_LIMITS,
                SystemCounterDescriptor.STATUS_MESSAGES_SENT, SystemCounterDescriptor.SHORT_SENDS,
                SystemCounterDescriptor.FLOW_CONTROL_UNDER_RUNS, SystemCounterDescriptor.FLOW_CONTROL_OVER_RUNS})
            {
                line.append(' ').append(counter.name().toLowerCase(Locale.ROOT)).append('=')
                    .append(String.format(Locale.ROOT, "%.3f",
                        (double) counters.getCounterValue(counter.id()) / Math.max(1, fetches)));
            }
            System.out.println(line);
        }

        long fetch()
        {
            fetches++;
            if (aeronClient != null)
            {
                return aeronClient.fetch(ID, destination, 0).join();
            }
            if (bareAeron != null)
            {
                return bareAeron.fetch(size);
            }
            destinationBytes.clear();
            return nettyClient.fetch(ID, destinationBytes).join();
        }
    }

    /**
     * One fetch, request to last byte in the destination, timed alone (SampleTime: mean, p50, p99...).
     *
     * @param fixture the transport and block.
     * @return bytes fetched.
     */
    @Benchmark
    public long fetch(final Fixture fixture)
    {
        return fixture.fetch();
    }

    private static void writeRandom(final Path file, final int size) throws IOException
    {
        final ByteBuffer bytes = ByteBuffer.allocateDirect(Math.max(size, 8));
        final SplittableRandom random = new SplittableRandom(42);
        while (bytes.remaining() >= 8)
        {
            bytes.putLong(random.nextLong());
        }
        bytes.flip().limit(size);
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE))
        {
            while (bytes.hasRemaining())
            {
                channel.write(bytes);
            }
        }
        finally
        {
            BufferUtil.free(bytes);
        }
    }
}
