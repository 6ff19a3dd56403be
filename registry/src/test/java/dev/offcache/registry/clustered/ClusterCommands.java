package dev.offcache.registry.clustered;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import dev.offcache.registry.model.Command;
import dev.offcache.registry.model.Commands;
import dev.offcache.registry.model.ReferenceModel;
import dev.offcache.registry.state.DatasetSchema;

/**
 * Runs the registry property test's generated commands through the cluster client, and normalises outcomes the
 * way {@link Command#normalise} does (after dropping materialization times) so they compare with the model's.
 */
final class ClusterCommands
{
    private ClusterCommands()
    {
    }

    /**
     * A random command sequence from the property test's generator (no clock steps: cluster time is not ours).
     */
    static List<Command> sample(final String ns, final int atLeast)
    {
        final List<Command> out = new ArrayList<>();
        while (out.size() < atLeast)
        {
            out.addAll(Commands.sequences(ns, false).sample());
        }
        return out;
    }

    /**
     * Publishes one command; null for a refused one (the client throws before publishing, like the Disruptor
     * front), whose outcome is {@link Command#REFUSED}.
     */
    static CompletableFuture<?> publish(final RegistryClusterClient client, final Command command)
    {
        if (command instanceof Command.Lookup c)
        {
            return client.lookup(c.key());
        }
        if (command instanceof Command.Begin c)
        {
            return client.beginMaterialization(c.key(), c.job());
        }
        if (command instanceof Command.Acquire c)
        {
            return client.acquire(c.key(), c.job());
        }
        if (command instanceof Command.Complete c)
        {
            return client.completeMaterialization(c.key(), c.job(), c.schema(), c.locations());
        }
        if (command instanceof Command.BadComplete c)
        {
            try
            {
                client.completeMaterialization(c.key(), c.job(), new DatasetSchema("bad"), c.locations());
                return CompletableFuture.completedFuture("accepted?!");
            }
            catch (final IllegalArgumentException expected)
            {
                return CompletableFuture.completedFuture(Command.REFUSED);
            }
        }
        if (command instanceof Command.Abort c)
        {
            return client.abortMaterialization(c.key(), c.job());
        }
        if (command instanceof Command.Invalidate c)
        {
            return client.invalidate(c.key());
        }
        if (command instanceof Command.InvalidateJob c)
        {
            return client.invalidate(c.key(), c.job());
        }
        if (command instanceof Command.InvalidateExecutor c)
        {
            return client.invalidateExecutor(c.executor());
        }
        if (command instanceof Command.RemoveSession c)
        {
            return client.removeSession(c.session());
        }
        if (command instanceof Command.SetExecutorLive c)
        {
            return client.executorLive(c.executor(), c.live());
        }
        throw new IllegalArgumentException("not generated without a clock: " + command);
    }

    /**
     * Whether publishing the command reaches the cluster (and is counted as an applied command there).
     */
    static boolean reachesCluster(final Command command)
    {
        return !(command instanceof Command.BadComplete);
    }

    static Object normalise(final Object outcome)
    {
        final Object untimed = ClusterFixture.untimed(outcome);
        if (untimed instanceof List<?> list)
        {
            return new HashSet<>(list);
        }
        return Command.normalise(untimed);
    }

    static Object expected(final ReferenceModel model, final Command command)
    {
        return normalise(command.apply(model));
    }
}
