package dev.offcache.dataset.cluster;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import dev.offcache.registry.state.PartitionLocation;
import dev.offcache.testkit.jvm.ChildJvm;
import dev.offcache.transport.media.TransportChannels;
import dev.offcache.transport.wire.ErrorCode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The production shape of a timed-out fetch: an executor JVM serves a 32 MiB partition over UDP to a scheduler JVM
 * that runs with Agrona's bounds checks off and a 400 ms fetch deadline; the executor is stopped (SIGSTOP) for
 * 1.2 s in the middle of each read-back and then continued, so the rest of a chunk arrives after the fetch failed
 * and its region was unmapped. The scheduler JVM must survive every round (a late write would be a SIGSEGV) and
 * read the partition whole once the executor runs undisturbed (within a few attempts: under a heavily loaded
 * machine an undisturbed 32 MiB read can still miss the 400 ms deadline).
 */
class LateWriteAfterTimeoutTest
{
    private static final int ROUNDS = 3;
    private static final int UNDISTURBED_ATTEMPTS = 5;

    @TempDir
    Path root;

    @Test
    @Timeout(120)
    void aSchedulerWithoutBoundsChecksSurvivesFetchesThatTimeOutMidChunk() throws Exception
    {
        final int port = TestCluster.freeUdpPort();
        try (ChildJvmExecutor executor = new ChildJvmExecutor("exec-1", root.resolve("exec-1"), port, root))
        {
            final PartitionLocation location = executor.runTask("job", 1, 0, 5, 4 * 1024 * 1024);
            final List<String> command = ChildJvm.command(List.of("-XX:TieredStopAtLevel=1",
                "-Dagrona.disable.bounds.checks=true",
                "-XX:ErrorFile=" + root.resolve("reader-hs_err_%p.log")),
                ReadBackChild.class, TransportChannels.udp("127.0.0.1", port), location.executorId(),
                location.jobId(), Integer.toString(location.stageId()), Integer.toString(location.partitionId()),
                location.path(), Long.toString(location.length()), Long.toString(location.crc32c()), "400");
            final Path log = root.resolve("reader.err");
            final Process reader = new ProcessBuilder(command).redirectError(log.toFile()).start();
            final List<String> answers = new ArrayList<>();
            String aeronDir = null;
            try (BufferedReader in = new BufferedReader(new InputStreamReader(reader.getInputStream(),
                StandardCharsets.UTF_8));
                Writer out = new OutputStreamWriter(reader.getOutputStream(), StandardCharsets.UTF_8))
            {
                final String ready = in.readLine();
                assertTrue(ready != null && ready.startsWith("READY "), () -> ready + " " + read(log));
                aeronDir = ready.substring("READY ".length());
                for (int round = 0; round < ROUNDS; round++)
                {
                    out.write("READ\n");
                    out.flush();
                    Thread.sleep(30 + 20L * round); // let the transfer get going
                    signal("STOP", executor.process().pid());
                    Thread.sleep(1_200);
                    signal("CONT", executor.process().pid());
                    answers.add(in.readLine());
                }
                // Undisturbed, a read must succeed; a loaded machine may still miss the 400 ms deadline now and then.
                for (int attempt = 0; attempt < UNDISTURBED_ATTEMPTS; attempt++)
                {
                    out.write("READ\n");
                    out.flush();
                    final String answer = in.readLine();
                    answers.add(answer);
                    if (("READ " + location.length()).equals(answer))
                    {
                        break;
                    }
                }
                out.write("EXIT\n");
                out.flush();
                answers.add(in.readLine());
            }
            finally
            {
                signal("CONT", executor.process().pid());
                if (!reader.waitFor(30, TimeUnit.SECONDS))
                {
                    reader.destroyForcibly();
                }
                if (aeronDir != null)
                {
                    // a crashed reader cannot delete its driver's directory
                    deleteRecursively(Path.of(aeronDir));
                }
            }
            assertEquals(0, reader.exitValue(), "the scheduler JVM died: " + answers + " " + read(log));
            assertEquals("BYE", answers.get(answers.size() - 1), answers.toString());
            assertEquals("READ " + location.length(), answers.get(answers.size() - 2),
                "undisturbed, it reads: " + answers);
            assertTrue(answers.subList(0, ROUNDS).contains("FAILED " + ErrorCode.TIMEOUT),
                "the stops cut fetches mid-way: " + answers);
        }
    }

    private static void deleteRecursively(final Path dir) throws IOException
    {
        if (Files.exists(dir))
        {
            try (Stream<Path> files = Files.walk(dir))
            {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private static void signal(final String signal, final long pid) throws Exception
    {
        new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).start().waitFor();
    }

    private static String read(final Path log)
    {
        try
        {
            return Files.exists(log) ? Files.readString(log) : "";
        }
        catch (final IOException ex)
        {
            return ex.toString();
        }
    }
}
