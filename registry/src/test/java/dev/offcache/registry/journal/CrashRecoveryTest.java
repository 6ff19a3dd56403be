package dev.offcache.registry.journal;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import org.agrona.concurrent.CachedEpochClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.offcache.registry.model.Command;
import dev.offcache.registry.model.ReferenceModel;
import dev.offcache.registry.state.CacheEntry;
import dev.offcache.registry.state.CacheKey;
import dev.offcache.registry.state.CacheStateMachine;
import dev.offcache.testkit.jvm.ChildJvm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Crash consistency of the durable backend with a real SIGKILL: a child JVM applies a scripted command sequence and
 * prints each acknowledgement; the test kills it ({@code ProcessHandle.destroyForcibly}, SIGKILL) at a random
 * moment, recovers the journal and checks that the state equals the reference model after some prefix of the
 * script that contains every acknowledged command and no command that was never published. The next child resumes
 * from that prefix on the same directory, so crashes also land during recovery, snapshots and journal trimming.
 */
class CrashRecoveryTest
{
    private static final int COMMANDS = 1_500;
    private static final int KILLS = 6;

    @TempDir
    Path dir;

    @Test
    void stateAfterSigkillIsExactlyTheAcknowledgedPrefix() throws Exception
    {
        final long seed = new Random().nextLong();
        final Random random = new Random(seed);
        final List<Command> script = CrashScript.commands(seed, COMMANDS);
        final List<Map<CacheKey, CacheEntry>> prefixStates = prefixStates(script);

        int resumeAt = 0;
        int kills = 0;
        while (resumeAt < COMMANDS)
        {
            final boolean kill = kills < KILLS;
            final int killAfterAcks = kill ? 1 + random.nextInt(200) : Integer.MAX_VALUE;
            final Process child = start(seed, resumeAt);
            int lastAck = resumeAt - 1;
            boolean done = false;
            try (BufferedReader out = new BufferedReader(
                new InputStreamReader(child.getInputStream(), StandardCharsets.US_ASCII)))
            {
                String line;
                int acksThisRun = 0;
                while ((line = out.readLine()) != null)
                {
                    if (line.startsWith("ACK "))
                    {
                        final int index = Integer.parseInt(line.substring(4));
                        assertEquals(lastAck + 1, index, "acknowledgements arrive in order");
                        lastAck = index;
                        if (++acksThisRun == killAfterAcks)
                        {
                            // SIGKILL through the handle: Process.destroyForcibly() would also close our end of the
                            // pipe and lose acknowledgements the child printed just before it died.
                            child.toHandle().destroyForcibly();
                            kills++;
                        }
                    }
                    else if (line.equals("DONE"))
                    {
                        done = true;
                    }
                }
            }
            assertTrue(child.waitFor(30, TimeUnit.SECONDS), "child exited");
            if (kill && done)
            {
                kills--;
            }
            if (!kill)
            {
                assertTrue(done, "the last child ran the script to the end (exit " + child.exitValue() + ")");
            }

            final Map<CacheKey, CacheEntry> recovered = recover();
            // The child publishes at most WINDOW commands past its last acknowledgement before it dies.
            final int lowest = lastAck + 1;
            final int highest = Math.min(COMMANDS, lastAck + 1 + CrashChild.WINDOW);
            int match = -1;
            for (int n = lowest; n <= highest && match < 0; n++)
            {
                if (prefixStates.get(n).equals(recovered))
                {
                    match = n;
                }
            }
            if (match < 0)
            {
                fail("seed " + seed + ": recovered state matches no prefix in [" + lowest + ", " + highest +
                    "] (last ack " + lastAck + "): " + recovered.size() + " entries");
            }
            resumeAt = match;
        }
        assertEquals(KILLS, kills, "seed " + seed);
        assertEquals(prefixStates.get(COMMANDS), recover());
    }

    private Process start(final long seed, final int resumeAt) throws Exception
    {
        final List<String> command = ChildJvm.command(List.of("-XX:TieredStopAtLevel=1"), CrashChild.class,
            dir.toString(), Long.toString(seed), Integer.toString(resumeAt));
        command.add(Integer.toString(COMMANDS));
        return new ProcessBuilder(command)
            .redirectError(dir.resolveSibling(dir.getFileName() + "-child.err").toFile())
            .start();
    }

    private Map<CacheKey, CacheEntry> recover()
    {
        try (JournalChangeLog log = JournalChangeLog.open(new JournalChangeLog.Context()
            .directory(dir).segmentSize(64 * 1024).snapshotEveryRecords(CrashChild.SNAPSHOT_EVERY)))
        {
            final CacheStateMachine state = new CacheStateMachine(new CachedEpochClock());
            log.recover(state);
            return state.entries();
        }
    }

    private static List<Map<CacheKey, CacheEntry>> prefixStates(final List<Command> script)
    {
        final ReferenceModel model = new ReferenceModel();
        final List<Map<CacheKey, CacheEntry>> states = new ArrayList<>();
        states.add(Map.copyOf(model.map));
        for (final Command command : script)
        {
            command.apply(model);
            states.add(Map.copyOf(model.map));
        }
        return states;
    }
}
