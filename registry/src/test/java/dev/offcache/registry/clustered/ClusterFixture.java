package dev.offcache.registry.clustered;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;

import dev.offcache.registry.api.Acquisition;
import dev.offcache.registry.state.BeginOutcome;
import dev.offcache.registry.state.CacheEntry;
import dev.offcache.registry.state.CacheKey;
import dev.offcache.registry.state.Materialized;
import dev.offcache.registry.state.RemovedEntry;
import dev.offcache.registry.api.RemovalListener;
import dev.offcache.testkit.net.LoopbackPorts;

/**
 * Three registry members on 127.0.0.1 in this JVM, each with its own member directory, Aeron directory in /dev/shm
 * (deleted on close) and a random port base; plus helpers shared by the cluster tests. Public for the dataset-cache
 * tests, which run the coordinator on a clustered registry.
 */
public final class ClusterFixture implements AutoCloseable
{
    static final List<String> HOSTS = List.of("127.0.0.1", "127.0.0.1", "127.0.0.1");

    final Path baseDir;
    final int portBase;
    final String aeronPrefix;
    final RegistryClusterMember[] members = new RegistryClusterMember[HOSTS.size()];

    /**
     * A fixture whose members live under a directory.
     *
     * @param baseDir the members' directories go here.
     */
    public ClusterFixture(final Path baseDir)
    {
        this.baseDir = baseDir;
        this.portBase = randomPortBase();
        this.aeronPrefix = "/dev/shm/aeron-offcache-cluster-test-" + Long.toHexString(System.nanoTime());
    }

    /**
     * Below the ephemeral range: the clients' egress binds {@code 127.0.0.1:0}, and an ephemeral port taken between a
     * member's stop and restart made its rebind fail with "Address already in use" (CI, port 50121).
     */
    static int randomPortBase()
    {
        return LoopbackPorts.randomBase(100);
    }

    RegistryClusterMember.Context memberContext(final int id)
    {
        return new RegistryClusterMember.Context()
            .memberId(id)
            .hosts(HOSTS)
            .portBase(portBase)
            .memberDir(baseDir.resolve("member-" + id).toFile())
            .aeronDirectoryName(aeronPrefix + "-" + id)
            .logTermLength(1 << 20)
            .ingressTermLength(256 * 1024);
    }

    /** Starts the three members. */
    public void startAll()
    {
        for (int i = 0; i < members.length; i++)
        {
            start(i);
        }
    }

    void start(final int id)
    {
        members[id] = RegistryClusterMember.launch(memberContext(id));
    }

    /**
     * Stops one member (abruptly: no leave protocol).
     *
     * @param id the member.
     */
    public void stop(final int id)
    {
        if (members[id] != null)
        {
            members[id].close();
            members[id] = null;
        }
    }

    /**
     * A client of the cluster; the caller closes it.
     *
     * @return the client.
     */
    public RegistryClusterClient client()
    {
        return client(null);
    }

    /**
     * A client of the cluster told of the entries its commands remove; the caller closes it.
     *
     * @param removals the removal listener, or null.
     * @return the client.
     */
    public RegistryClusterClient client(final RemovalListener removals)
    {
        return RegistryClusterClient.connect(new RegistryClusterClient.Context()
            .removalListener(removals)
            .ingressEndpoints(RegistryClusterMember.ingressEndpoints(HOSTS, portBase))
            .egressChannel("aeron:udp?endpoint=127.0.0.1:0")
            .connectTimeoutMs(20_000)
            .resendTimeoutMs(1_000));
    }

    /**
     * Waits for a leader.
     *
     * @param timeoutMs how long.
     * @return its member id.
     */
    public int awaitLeader(final long timeoutMs)
    {
        final int[] leader = {-1};
        await(() ->
        {
            for (final RegistryClusterMember member : members)
            {
                if (member != null && member.isLeader())
                {
                    leader[0] = member.memberId();
                    return true;
                }
            }
            return false;
        }, timeoutMs, "a leader");
        return leader[0];
    }

    static void await(final BooleanSupplier condition, final long timeoutMs, final String what)
    {
        final long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() - deadline > 0)
            {
                throw new AssertionError("timed out after " + timeoutMs + " ms waiting for " + what);
            }
            Thread.onSpinWait();
            try
            {
                Thread.sleep(5);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                throw new AssertionError(ex);
            }
        }
    }

    /**
     * Materialization times are cluster time on the members and model time in the reference model: compare
     * everything else.
     */
    static Object untimed(final Object value)
    {
        if (value instanceof Materialized m)
        {
            return new Materialized(m.jobId(), m.schema(), m.locations(), 0);
        }
        if (value instanceof BeginOutcome.AlreadyMaterialized m)
        {
            return new BeginOutcome.AlreadyMaterialized((Materialized) untimed(m.entry()));
        }
        if (value instanceof Acquisition.Hit hit)
        {
            return new Acquisition.Hit((Materialized) untimed(hit.entry()));
        }
        if (value instanceof RemovedEntry removed)
        {
            return new RemovedEntry(removed.key(), (CacheEntry) untimed(removed.entry()));
        }
        if (value instanceof List<?> list)
        {
            final List<Object> out = new ArrayList<>();
            for (final Object element : list)
            {
                out.add(untimed(element));
            }
            return out;
        }
        if (value instanceof Map<?, ?> map)
        {
            final java.util.HashMap<Object, Object> out = new java.util.HashMap<>();
            map.forEach((k, v) -> out.put(k, untimed(v)));
            return out;
        }
        return value;
    }

    static Map<CacheKey, CacheEntry> untimedEntries(final Map<CacheKey, CacheEntry> entries)
    {
        @SuppressWarnings("unchecked")
        final Map<CacheKey, CacheEntry> out = (Map<CacheKey, CacheEntry>) untimed(entries);
        return out;
    }

    public void close()
    {
        for (int i = 0; i < members.length; i++)
        {
            stop(i);
        }
        for (int i = 0; i < members.length; i++)
        {
            deleteQuietly(Path.of(aeronPrefix + "-" + i));
        }
    }

    static void deleteQuietly(final Path path)
    {
        if (!Files.exists(path))
        {
            return;
        }
        try (Stream<Path> files = Files.walk(path))
        {
            for (final Path file : files.sorted(Comparator.reverseOrder()).toList())
            {
                Files.deleteIfExists(file);
            }
        }
        catch (final IOException ex)
        {
            // best effort: a driver that is still shutting down may hold a file for a moment
        }
    }

    static File file(final Path path)
    {
        return path.toFile();
    }
}
