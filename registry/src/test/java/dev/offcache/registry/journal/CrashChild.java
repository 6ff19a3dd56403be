package dev.offcache.registry.journal;

import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.agrona.concurrent.CachedEpochClock;

import dev.offcache.registry.front.CacheRegistry;
import dev.offcache.registry.model.Command;

/**
 * The crash test's child JVM: recovers the durable registry in {@code args[0]}, applies the script from index
 * {@code args[2]} with up to {@value #WINDOW} commands in flight, and prints {@code ACK i} (flushed) once command i
 * is acknowledged. The parent kills it with SIGKILL at a random moment.
 */
public final class CrashChild
{
    static final int WINDOW = 8;
    static final long SNAPSHOT_EVERY = 64;

    private CrashChild()
    {
    }

    /**
     * Runs the child.
     *
     * @param args directory, seed, first command index, command count.
     */
    public static void main(final String[] args)
    {
        final Path dir = Path.of(args[0]);
        final long seed = Long.parseLong(args[1]);
        final int start = Integer.parseInt(args[2]);
        final int count = Integer.parseInt(args[3]);
        final List<Command> commands = CrashScript.commands(seed, count);
        final CacheRegistry registry = CacheRegistry.launch(new CacheRegistry.Context()
            .clock(new CachedEpochClock())
            .changeLog(JournalChangeLog.open(new JournalChangeLog.Context()
                .directory(dir)
                .segmentSize(64 * 1024)
                .snapshotEveryRecords(SNAPSHOT_EVERY))));
        System.out.println("READY " + start);
        System.out.flush();
        final ArrayDeque<CompletableFuture<?>> inFlight = new ArrayDeque<>();
        int acked = start;
        for (int i = start; i < count; i++)
        {
            inFlight.add(commands.get(i).publish(registry));
            while (inFlight.size() >= WINDOW)
            {
                inFlight.poll().join();
                System.out.println("ACK " + acked++);
                System.out.flush();
            }
        }
        while (!inFlight.isEmpty())
        {
            inFlight.poll().join();
            System.out.println("ACK " + acked++);
            System.out.flush();
        }
        registry.close();
        System.out.println("DONE");
        System.out.flush();
    }
}
