package dev.offcache.dataset.cluster;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import dev.offcache.registry.state.PartitionLocation;
import dev.offcache.registry.state.StageRef;
import dev.offcache.testkit.jvm.ChildJvm;
import dev.offcache.transport.media.TransportChannels;

/**
 * An executor in a child JVM ({@link ExecutorMain}), launched with the JVM flags Surefire passes in
 * {@code offcache.jvm.flags}; tasks and cleanup go over its stdin/stdout, partitions are served over UDP on
 * 127.0.0.1. {@link #kill()} is SIGKILL; the child's Aeron directory is deleted after it died.
 */
final class ChildJvmExecutor implements ExecutorNode
{
    private final String id;
    private final int port;
    private final Process process;
    private final BufferedReader in;
    private final Writer out;
    private final String aeronDir;

    ChildJvmExecutor(final String id, final Path workDir, final int port, final Path logDir)
    {
        this.id = id;
        this.port = port;
        final List<String> command = ChildJvm.command(List.of("-XX:TieredStopAtLevel=1"), ExecutorMain.class, id,
            workDir.toString(), Integer.toString(port));
        try
        {
            process = new ProcessBuilder(command).redirectError(logDir.resolve(id + ".err").toFile()).start();
            in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
            out = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
            final String ready = in.readLine();
            if (ready == null || !ready.startsWith("READY "))
            {
                process.destroyForcibly();
                throw new IllegalStateException("executor " + id + " did not start: " + ready + " (see " +
                    logDir.resolve(id + ".err") + ")");
            }
            aeronDir = ready.substring("READY ".length());
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    Process process()
    {
        return process;
    }

    Path aeronDir()
    {
        return Path.of(aeronDir);
    }

    public boolean isAlive()
    {
        return process.isAlive();
    }

    public String id()
    {
        return id;
    }

    public String requestChannel()
    {
        return TransportChannels.udp("127.0.0.1", port);
    }

    public int requestStreamId()
    {
        return 7001;
    }

    public PartitionLocation runTask(final String jobId, final int stageId, final int partitionId, final long seed,
        final int rows)
    {
        final String answer = call("WRITE " + jobId + " " + stageId + " " + partitionId + " " + seed + " " + rows);
        final String[] fields = answer.split(" ");
        return new PartitionLocation(id, jobId, stageId, partitionId, fields[0], Long.parseLong(fields[1]),
            Long.parseLong(fields[2]));
    }

    public int deleteJob(final String jobId, final Set<StageRef> keep)
    {
        final String stages = keep.isEmpty() ? "-" :
            keep.stream().map(s -> Integer.toString(s.stageId())).collect(Collectors.joining(","));
        return Integer.parseInt(call("DELETE_JOB " + jobId + " " + stages));
    }

    public boolean deleteStage(final StageRef stage)
    {
        return Boolean.parseBoolean(call("DELETE_STAGE " + stage.jobId() + " " + stage.stageId()));
    }

    public boolean stageExists(final String jobId, final int stageId)
    {
        return Boolean.parseBoolean(call("EXISTS " + jobId + " " + stageId));
    }

    public boolean jobExists(final String jobId)
    {
        return Boolean.parseBoolean(call("JOB_EXISTS " + jobId));
    }

    public void kill()
    {
        process.destroyForcibly();
        awaitExitAndCleanAeronDir();
    }

    public void close()
    {
        if (process.isAlive())
        {
            try
            {
                synchronized (this)
                {
                    out.write("EXIT\n");
                    out.flush();
                }
                if (!process.waitFor(10, TimeUnit.SECONDS))
                {
                    process.destroyForcibly();
                }
            }
            catch (final IOException ex)
            {
                process.destroyForcibly();
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                process.destroyForcibly();
            }
        }
        awaitExitAndCleanAeronDir();
    }

    private synchronized String call(final String line)
    {
        try
        {
            if (!process.isAlive())
            {
                throw new IllegalStateException("executor " + id + " is dead");
            }
            out.write(line + "\n");
            out.flush();
            final String answer = in.readLine();
            if (answer == null)
            {
                throw new IllegalStateException("executor " + id + " died during: " + line);
            }
            if (!answer.startsWith("OK "))
            {
                throw new IllegalStateException("executor " + id + " answered " + answer + " to " + line);
            }
            return answer.substring(3);
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException("executor " + id + " unreachable during: " + line, ex);
        }
    }

    private void awaitExitAndCleanAeronDir()
    {
        try
        {
            process.waitFor(10, TimeUnit.SECONDS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        final Path dir = Path.of(aeronDir);
        if (Files.exists(dir))
        {
            try (Stream<Path> files = Files.walk(dir))
            {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
            catch (final IOException ex)
            {
                throw new UncheckedIOException(ex);
            }
        }
    }
}
