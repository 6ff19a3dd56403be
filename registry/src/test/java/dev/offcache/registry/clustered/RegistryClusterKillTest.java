package dev.offcache.registry.clustered;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.offcache.registry.model.Command;
import dev.offcache.registry.model.ReferenceModel;
import dev.offcache.testkit.jvm.ChildJvm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Three members in three child JVMs (launched with the build's {@code offcache.jvm.flags}); the leader's JVM is
 * killed with SIGKILL while commands are in flight. The client gets a new leader, every command is applied exactly
 * once and matches the reference model, and the killed member restarts on its directory (stale mark files) and
 * catches up.
 */
class RegistryClusterKillTest
{
    private static final long TIMEOUT_S = 20;

    @TempDir
    Path dir;

    private final Process[] children = new Process[3];
    private final AtomicReferenceArray<String> status = new AtomicReferenceArray<>(3);
    private int portBase;
    private String aeronPrefix;

    @Test
    void sigkillOfTheLeaderJvmLosesNothingAndAppliesNothingTwice() throws Exception
    {
        portBase = ClusterFixture.randomPortBase();
        aeronPrefix = "/dev/shm/aeron-offcache-cluster-kill-" + Long.toHexString(System.nanoTime());
        final ReferenceModel model = new ReferenceModel();
        long issued = 0;
        try
        {
            for (int i = 0; i < 3; i++)
            {
                start(i);
            }
            try (RegistryClusterClient client = RegistryClusterClient.connect(new RegistryClusterClient.Context()
                .ingressEndpoints(RegistryClusterMember.ingressEndpoints(ClusterFixture.HOSTS, portBase))
                .egressChannel("aeron:udp?endpoint=127.0.0.1:0")
                .connectTimeoutMs(30_000)
                .resendTimeoutMs(1_000)))
            {
                final List<Command> script = ClusterCommands.sample("k", 300);
                final List<CompletableFuture<?>> futures = new ArrayList<>();
                final int killAt = script.size() / 3;
                int killed = -1;
                for (int i = 0; i < script.size(); i++)
                {
                    if (i == killAt)
                    {
                        futures.get(killAt / 2).get(TIMEOUT_S, TimeUnit.SECONDS);
                        killed = client.leaderMemberId();
                        children[killed].toHandle().destroyForcibly();
                        assertTrue(children[killed].waitFor(10, TimeUnit.SECONDS));
                    }
                    futures.add(ClusterCommands.publish(client, script.get(i)));
                }
                for (int i = 0; i < script.size(); i++)
                {
                    final Command command = script.get(i);
                    assertEquals(ClusterCommands.expected(model, command),
                        ClusterCommands.normalise(futures.get(i).get(TIMEOUT_S, TimeUnit.SECONDS)), "outcome of " +
                        command);
                    issued += ClusterCommands.reachesCluster(command) ? 1 : 0;
                }
                assertNotEquals(killed, client.leaderMemberId(), "a new leader answers");
                RegistryClusterClient.Probe probe = client.probe().get(TIMEOUT_S, TimeUnit.SECONDS);
                issued++;
                assertEquals(issued, probe.appliedCommands(), "every command applied exactly once");
                assertEquals(ClusterFixture.untimedEntries(model.map), ClusterFixture.untimedEntries(probe.entries()));

                // The SIGKILLed member restarts on its directory and replays up to the others.
                start(killed);
                probe = client.probe().get(TIMEOUT_S, TimeUnit.SECONDS);
                final String expected = "APPLIED " + probe.appliedCommands();
                final int member = killed;
                ClusterFixture.await(() -> status.get(member) != null && status.get(member).startsWith(expected + " "),
                    20_000, "restarted member at " + expected + " (is " + status.get(member) + ")");
            }
        }
        finally
        {
            for (int i = 0; i < 3; i++)
            {
                if (children[i] != null)
                {
                    children[i].getOutputStream().close();
                    if (!children[i].waitFor(10, TimeUnit.SECONDS))
                    {
                        children[i].toHandle().destroyForcibly();
                        children[i].waitFor(5, TimeUnit.SECONDS);
                    }
                }
                ClusterFixture.deleteQuietly(Path.of(aeronPrefix + "-" + i));
            }
        }
    }

    private void start(final int id) throws Exception
    {
        final List<String> command = ChildJvm.command(
            List.of("-XX:TieredStopAtLevel=1", "-Daeron.counters.buffer.length=1048576"),
            ClusterMemberMain.class, Integer.toString(id), dir.resolve("member-" + id).toString(),
            Integer.toString(portBase), aeronPrefix + "-" + id);
        final Process process = new ProcessBuilder(command)
            .redirectError(dir.resolve("member-" + id + "-" + System.nanoTime() + ".err").toFile())
            .start();
        children[id] = process;
        status.set(id, null);
        final Thread reader = new Thread(() ->
        {
            try (BufferedReader out = new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.US_ASCII)))
            {
                String line;
                while ((line = out.readLine()) != null)
                {
                    status.set(id, line);
                }
            }
            catch (final Exception ignored)
            {
                // the child died
            }
        });
        reader.setDaemon(true);
        reader.start();
    }
}
