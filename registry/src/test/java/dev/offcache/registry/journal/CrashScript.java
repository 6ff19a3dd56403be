package dev.offcache.registry.journal;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import dev.offcache.registry.model.Command;
import dev.offcache.registry.state.CacheKey;
import dev.offcache.registry.state.DatasetSchema;
import dev.offcache.registry.state.PartitionLocation;

/**
 * The deterministic command sequence the crash test's child JVM applies and the parent replays on the reference
 * model: the same seed gives the same commands in both processes.
 */
final class CrashScript
{
    private CrashScript()
    {
    }

    static List<Command> commands(final long seed, final int count)
    {
        final Random random = new Random(seed);
        final List<Command> commands = new ArrayList<>(count);
        for (int i = 0; i < count; i++)
        {
            final CacheKey key = new CacheKey("s" + random.nextInt(3), "c" + random.nextInt(6));
            final String job = "j" + random.nextInt(4);
            final int kind = random.nextInt(20);
            if (kind < 7)
            {
                commands.add(new Command.Begin(key, job));
            }
            else if (kind < 14)
            {
                final List<PartitionLocation> locations = new ArrayList<>();
                final int partitions = 1 + random.nextInt(3);
                for (int p = 0; p < partitions; p++)
                {
                    locations.add(new PartitionLocation("e" + random.nextInt(4), job, 2, p,
                        "/w/" + job + "/2/" + p + ".data", random.nextInt(10_000)));
                }
                commands.add(new Command.Complete(key, job, new DatasetSchema("schema-" + i), locations));
            }
            else if (kind < 16)
            {
                commands.add(new Command.Abort(key, job));
            }
            else if (kind < 18)
            {
                commands.add(new Command.Invalidate(key));
            }
            else if (kind < 19)
            {
                commands.add(new Command.InvalidateExecutor("e" + random.nextInt(4)));
            }
            else
            {
                commands.add(new Command.RemoveSession("s" + random.nextInt(3)));
            }
        }
        return commands;
    }
}
