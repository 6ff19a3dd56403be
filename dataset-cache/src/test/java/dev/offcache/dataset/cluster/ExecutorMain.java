package dev.offcache.dataset.cluster;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import dev.offcache.core.shuffle.PartitionInfo;
import dev.offcache.registry.state.StageRef;
import dev.offcache.transport.media.AeronMedia;
import dev.offcache.transport.media.TransportChannels;

/**
 * An executor as its own JVM: {@code ExecutorMain <id> <workDir> <udpPort>} starts an embedded media driver, a
 * shuffle store and a payload server on {@code aeron:udp?endpoint=127.0.0.1:<udpPort>}, prints
 * {@code READY <aeronDir>}, then answers one line per command on stdin:
 * <pre>
 * WRITE job stage partition seed rows  → OK path length crc32c
 * DELETE_JOB job stage,stage,…|-       → OK deletedStages
 * DELETE_STAGE job stage               → OK true|false
 * EXISTS job stage                     → OK true|false
 * JOB_EXISTS job                       → OK true|false
 * EXIT                                 → BYE (then exits)
 * </pre>
 * Failures answer {@code ERR message}. Closing stdin also ends it.
 */
public final class ExecutorMain
{
    private ExecutorMain()
    {
    }

    /**
     * Runs the executor.
     *
     * @param args id, work dir, UDP port.
     * @throws Exception if it cannot start.
     */
    public static void main(final String[] args) throws Exception
    {
        final PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        try (AeronMedia media = AeronMedia.launch(new AeronMedia.Context()
                .publicationLingerTimeoutNs(TimeUnit.MILLISECONDS.toNanos(200))
                .imageLivenessTimeoutNs(TimeUnit.SECONDS.toNanos(2)));
            ExecutorCore core = new ExecutorCore(args[0], Path.of(args[1]), media,
                TransportChannels.udp("127.0.0.1", Integer.parseInt(args[2])), 7001))
        {
            out.println("READY " + media.aeronDirectoryName());
            final BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            String line;
            while ((line = in.readLine()) != null)
            {
                final String[] parts = line.trim().split(" ");
                if ("EXIT".equals(parts[0]))
                {
                    out.println("BYE");
                    return;
                }
                try
                {
                    out.println("OK " + handle(core, parts));
                }
                catch (final RuntimeException ex)
                {
                    out.println("ERR " + String.valueOf(ex).replace('\n', ' '));
                }
            }
        }
    }

    private static String handle(final ExecutorCore core, final String[] parts)
    {
        switch (parts[0])
        {
            case "WRITE":
            {
                final PartitionInfo info = core.write(parts[1], Integer.parseInt(parts[2]),
                    Integer.parseInt(parts[3]), Long.parseLong(parts[4]), Integer.parseInt(parts[5]));
                return info.path() + " " + info.length() + " " + Integer.toUnsignedLong(info.crc32c());
            }
            case "DELETE_JOB":
            {
                final Set<StageRef> keep = new HashSet<>();
                if (!"-".equals(parts[2]))
                {
                    for (final String stage : parts[2].split(","))
                    {
                        keep.add(new StageRef(parts[1], Integer.parseInt(stage)));
                    }
                }
                return Integer.toString(core.deleteJob(parts[1], keep));
            }
            case "DELETE_STAGE":
                return Boolean.toString(core.deleteStage(parts[1], Integer.parseInt(parts[2])));
            case "EXISTS":
                return Boolean.toString(core.stageExists(parts[1], Integer.parseInt(parts[2])));
            case "JOB_EXISTS":
                return Boolean.toString(core.jobExists(parts[1]));
            default:
                throw new IllegalArgumentException("unknown command: " + parts[0]);
        }
    }
}
