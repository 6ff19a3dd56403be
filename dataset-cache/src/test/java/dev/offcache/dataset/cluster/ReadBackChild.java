package dev.offcache.dataset.cluster;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

import dev.offcache.dataset.FetchFailedException;
import dev.offcache.dataset.FetchFailureListener;
import dev.offcache.dataset.PartitionReadBack;
import dev.offcache.dataset.PartitionViews;
import dev.offcache.dataset.ReadBackCounters;
import dev.offcache.dataset.ReadPlacement;
import dev.offcache.registry.state.PartitionLocation;
import dev.offcache.transport.client.PayloadClient;
import dev.offcache.transport.client.FetchException;
import dev.offcache.transport.media.AeronMedia;

/**
 * A scheduler's read-back in a JVM of its own (started with {@code -Dagrona.disable.bounds.checks=true}, as production
 * often is): {@code ReadBackChild <requestChannel> <executorId> <job> <stage> <partition> <path> <length> <crc>
 * <timeoutMs>} connects to an executor's payload server, prints {@code READY <aeronDir>}, then for every {@code READ}
 * line on stdin reads the partition back once (fetch regions are unmapped right after each read-back: no pool) and
 * prints {@code READ <bytes>} or {@code FAILED <errorCode>}; {@code EXIT} waits a moment for late fragments and prints
 * {@code BYE}. A write into a destination after its fetch ended would crash this JVM (SIGSEGV), not throw.
 */
public final class ReadBackChild
{
    private ReadBackChild()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        final PartitionLocation location = new PartitionLocation(args[1], args[2], Integer.parseInt(args[3]),
            Integer.parseInt(args[4]), args[5], Long.parseLong(args[6]), Long.parseLong(args[7]));
        final long timeoutNs = TimeUnit.MILLISECONDS.toNanos(Long.parseLong(args[8]));
        try (AeronMedia media = AeronMedia.launch(new AeronMedia.Context());
            PayloadClient client = PayloadClient.connect(new PayloadClient.Context().aeron(media.aeron())
                .requestChannel(args[0]).fetchTimeoutNs(timeoutNs));
            ReadBackCounters counters = new ReadBackCounters();
            PartitionReadBack readBack = new PartitionReadBack(ReadPlacement.remoteOnly(), id -> client, timeoutNs,
                true, counters, 0, FetchFailureListener.NONE))
        {
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!client.isConnected() && System.nanoTime() < deadline)
            {
                Thread.sleep(5);
            }
            out.println("READY " + media.aeronDirectoryName());
            final BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            String line;
            while ((line = in.readLine()) != null && !"EXIT".equals(line))
            {
                try (PartitionViews views = readBack.readAll(List.of(location)))
                {
                    out.println("READ " + views.buffer(0).capacity());
                }
                catch (final FetchFailedException ex)
                {
                    out.println("FAILED " + (ex.getCause() instanceof FetchException fetch ? fetch.errorCode() : -1));
                }
            }
            // The rest of a cut chunk arrives once the server runs again: give the client time to see it.
            Thread.sleep(1_000);
            out.println("BYE");
        }
    }
}
