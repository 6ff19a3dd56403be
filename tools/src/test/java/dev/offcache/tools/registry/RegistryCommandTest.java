package dev.offcache.tools.registry;

import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import dev.offcache.registry.clustered.RegistryClusterMember;
import dev.offcache.testkit.net.LoopbackPorts;
import dev.offcache.tools.ToolRun;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code offcache-registry}'s client commands against a real one-member registry cluster on 127.0.0.1: the answers
 * printed are the cluster's (claimed, then wait for a second job, pending in lookup and entries, aborted, absent),
 * state carries from one command's session to the next, a bad argument exits 2 naming it, and an unreachable
 * cluster exits 1 within the timeout.
 */
@Timeout(120)
class RegistryCommandTest
{
    @TempDir
    static Path dir;

    private static RegistryClusterMember member;
    private static int portBase;

    @BeforeAll
    static void startMember() throws Exception
    {
        portBase = LoopbackPorts.randomBase(100);
        member = RegistryClusterMember.launch(new RegistryClusterMember.Context()
            .memberId(0)
            .hosts(List.of("127.0.0.1"))
            .portBase(portBase)
            .memberDir(dir.resolve("member-0").toFile())
            .aeronDirectoryName("/dev/shm/aeron-offcache-registry-cli-test-" + Long.toHexString(System.nanoTime()))
            .logTermLength(1 << 20)
            .ingressTermLength(256 * 1024));
        final long deadline = System.nanoTime() + 30_000_000_000L;
        while (!member.isLeader())
        {
            assertTrue(System.nanoTime() < deadline, "the member became leader");
            Thread.sleep(20);
        }
    }

    @AfterAll
    static void stopMember()
    {
        if (member != null)
        {
            member.close();
        }
    }

    @Test
    void theAnswersAreTheClustersFromOneCommandToTheNext()
    {
        assertEquals(new ToolRun(0, "0 entries\n", ""), run("entries"));
        assertEquals(new ToolRun(0, "absent\n", ""), run("lookup", "--session", "s1", "--cache", "c1"));
        assertEquals(new ToolRun(0, "claimed\n", ""),
            run("acquire", "--session", "s1", "--cache", "c1", "--job", "j1"));
        assertEquals(new ToolRun(0, "wait j1\n", ""),
            run("acquire", "--session", "s1", "--cache", "c1", "--job", "j2"));
        assertEquals(new ToolRun(0, "pending j1\n", ""), run("lookup", "--session", "s1", "--cache", "c1"));
        assertEquals(new ToolRun(0, "claimed\n", ""),
            run("acquire", "--session", "s1", "--cache", "c2", "--job", "j3"));
        assertEquals(new ToolRun(0, "s1/c1 pending j1\ns1/c2 pending j3\n2 entries\n", ""), run("entries"));
        assertEquals(new ToolRun(0, "STALE\n", ""), run("abort", "--session", "s1", "--cache", "c1", "--job", "j2"));
        assertEquals(new ToolRun(0, "ABORTED\n", ""), run("abort", "--session", "s1", "--cache", "c1", "--job", "j1"));
        assertEquals(new ToolRun(0, "removed s1/c2 pending j3\n", ""),
            run("invalidate", "--session", "s1", "--cache", "c2"));
        assertEquals(new ToolRun(0, "0 entries\n", ""), run("entries"));
    }

    @Test
    void aBadArgumentExitsTwoNamingIt()
    {
        final ToolRun empty = run("lookup", "--session", "", "--cache", "c1");
        assertEquals(2, empty.status(), empty.toString());
        assertTrue(empty.err().contains("sessionId"), empty.err());
        final ToolRun missing = run("acquire", "--session", "s1", "--cache", "c1");
        assertEquals(2, missing.status(), missing.toString());
        assertTrue(missing.err().contains("--job"), missing.err());
    }

    @Test
    void anUnreachableClusterExitsOneWithinTheTimeout()
    {
        final long start = System.nanoTime();
        final ToolRun run = new ToolRun(RegistryCommand.commandLine(), "entries", "--hosts", "127.0.0.1",
            "--port-base", Integer.toString(portBase + 50), "--egress", "127.0.0.1", "--timeout-ms", "1500");
        assertEquals(1, run.status(), run.toString());
        assertTrue(run.err().startsWith("offcache-registry: "), run.err());
        assertTrue(System.nanoTime() - start < 20_000_000_000L, "gave up within the timeout");
    }

    private static ToolRun run(final String... args)
    {
        final String[] all = new String[args.length + 6];
        System.arraycopy(args, 0, all, 0, args.length);
        System.arraycopy(new String[] {"--hosts", "127.0.0.1", "--port-base", Integer.toString(portBase),
            "--egress", "127.0.0.1"}, 0, all, args.length, 6);
        return new ToolRun(RegistryCommand.commandLine(), all);
    }
}
