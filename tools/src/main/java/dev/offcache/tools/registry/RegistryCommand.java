package dev.offcache.tools.registry;

import java.io.File;
import java.io.PrintWriter;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

import dev.offcache.registry.api.Acquisition;
import dev.offcache.registry.clustered.RegistryClusterClient;
import dev.offcache.registry.clustered.RegistryClusterMember;
import dev.offcache.registry.state.AbortOutcome;
import dev.offcache.registry.state.CacheEntry;
import dev.offcache.registry.state.CacheKey;
import dev.offcache.registry.state.Materialized;
import dev.offcache.registry.state.Pending;
import dev.offcache.registry.state.PartitionLocation;
import dev.offcache.registry.state.RemovedEntry;
import dev.offcache.tools.ToolCommandLine;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code offcache-registry}: runs a member of the clustered registry, or sends one command to a running cluster and
 * prints the answer, one line per fact, so an operator can check a deployment from a shell. Each client command is a
 * {@link RegistryClusterClient} session of its own (connect, one command, close); the answers are the cluster's,
 * exactly as a scheduler would get them.
 *
 * <p>Exit status ({@link ToolCommandLine}): 0 with an answer, 1 when the cluster did not answer in time, 2 for bad
 * arguments.
 */
@Command(name = "offcache-registry", mixinStandardHelpOptions = true,
    versionProvider = ToolCommandLine.Version.class,
    description = "Runs a registry cluster member, or sends one command to a running cluster and prints the answer.",
    subcommands = {
        RegistryCommand.Member.class,
        RegistryCommand.Acquire.class,
        RegistryCommand.Lookup.class,
        RegistryCommand.Abort.class,
        RegistryCommand.Invalidate.class,
        RegistryCommand.Entries.class})
public final class RegistryCommand implements Runnable
{
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /**
     * Runs the command line and exits with its status (a {@code member} runs until SIGINT or SIGTERM).
     *
     * @param args the arguments.
     */
    public static void main(final String[] args)
    {
        System.exit(commandLine().execute(args));
    }

    /**
     * The command line, for tests and embedding: {@code execute} returns the exit status.
     *
     * @return a new command line.
     */
    public static CommandLine commandLine()
    {
        return ToolCommandLine.of(new RegistryCommand(), "offcache-registry");
    }

    @Override
    public void run()
    {
        throw new CommandLine.ParameterException(spec.commandLine(),
            "name a command: member, acquire, lookup, abort, invalidate or entries");
    }

    /** {@code member}: one cluster member in this process, until SIGINT or SIGTERM. */
    @Command(name = "member", mixinStandardHelpOptions = true,
        description = "Runs member <id> of the cluster of <hosts> in <dir> until SIGINT/SIGTERM (exit 130/143).")
    static final class Member implements Runnable
    {
        @Parameters(index = "0", description = "This member's id: its index in <hosts>.")
        int memberId;

        @Parameters(index = "1", description = "Every member's host, comma-separated, in id order.")
        String hosts;

        @Parameters(index = "2", description = "The member's directory (archive, cluster state); keep it across " +
            "restarts.")
        File dir;

        @Option(names = "--port-base", defaultValue = "" + RegistryClusterMember.Context.DEFAULT_PORT_BASE,
            description = "Member i uses port-base + 10i + 0..5 (default ${DEFAULT-VALUE}).")
        int portBase;

        @Override
        public void run()
        {
            RegistryClusterMember.main(new String[] {Integer.toString(memberId), hosts, dir.getPath(),
                Integer.toString(portBase)});
        }
    }

    /** What every client command needs: where the cluster is and how long to wait. */
    static final class Cluster
    {
        @Option(names = "--hosts", required = true, split = ",",
            description = "Every member's host, comma-separated, in id order.")
        List<String> hosts;

        @Option(names = "--port-base", defaultValue = "" + RegistryClusterMember.Context.DEFAULT_PORT_BASE,
            description = "The members' port base (default ${DEFAULT-VALUE}).")
        int portBase;

        @Option(names = "--egress", defaultValue = "localhost",
            description = "This host's address as the members reach it (replies come back there; default " +
                "${DEFAULT-VALUE}).")
        String egressHost;

        @Option(names = "--timeout-ms", defaultValue = "30000",
            description = "How long to wait for a session and for the answer (default ${DEFAULT-VALUE}).")
        long timeoutMs;

        <T> T call(final Function<RegistryClusterClient, CompletableFuture<T>> command)
        {
            try (RegistryClusterClient client = RegistryClusterClient.connect(new RegistryClusterClient.Context()
                .ingressEndpoints(RegistryClusterMember.ingressEndpoints(hosts, portBase))
                .egressChannel("aeron:udp?endpoint=" + egressHost + ":0")
                .connectTimeoutMs(timeoutMs)
                .threadName("offcache-registry-cli")))
            {
                return command.apply(client).get(timeoutMs, TimeUnit.MILLISECONDS);
            }
            catch (final TimeoutException ex)
            {
                throw new ToolCommandLine.Unavailable("no answer from the cluster at " + hosts + " (port base " +
                    portBase +
                    ") within " + timeoutMs + " ms");
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                throw new ToolCommandLine.Unavailable("interrupted");
            }
            catch (final ExecutionException ex)
            {
                throw new ToolCommandLine.Unavailable("the command failed: " + ex.getCause());
            }
            catch (final RuntimeException ex)
            {
                if (ex instanceof IllegalArgumentException)
                {
                    throw ex;
                }
                throw new ToolCommandLine.Unavailable("cannot reach the cluster at " + hosts + " (port base " +
                    portBase +
                    "): " + ex.getMessage());
            }
        }
    }

    /** The key every keyed command names. */
    static final class Key
    {
        @Option(names = "--session", required = true, description = "The key's session id.")
        String session;

        @Option(names = "--cache", required = true, description = "The key's cache id.")
        String cache;

        CacheKey key()
        {
            return new CacheKey(session, cache);
        }
    }

    /**
     * What every client command does around its own exchange: one cluster session, the answer printed to the command
     * line's output, which is flushed once the answer is printed.
     */
    abstract static class ClientCommand implements Runnable
    {
        @CommandLine.Mixin
        Cluster cluster;

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public final void run()
        {
            final PrintWriter out = spec.commandLine().getOut();
            send(out);
            out.flush();
        }

        /**
         * Sends the command through {@link #cluster} and prints the answer.
         *
         * @param out where the answer goes.
         */
        abstract void send(PrintWriter out);
    }

    /** A client command about one key: the key is checked before the cluster is asked. */
    abstract static class KeyedCommand extends ClientCommand
    {
        @CommandLine.Mixin
        Key key;

        @Override
        final void send(final PrintWriter out)
        {
            send(key.key(), out);
        }

        /**
         * Sends the command about the key through {@link #cluster} and prints the answer.
         *
         * @param cacheKey the key named on the command line.
         * @param out      where the answer goes.
         */
        abstract void send(CacheKey cacheKey, PrintWriter out);
    }

    /** {@code acquire}: what a scheduler does before an action that needs the dataset. */
    @Command(name = "acquire", mixinStandardHelpOptions = true,
        description = "Acquires a key for a job: prints 'hit <entry>', 'claimed' (the job now builds it: abort " +
            "or complete it) or 'wait <job>'.")
    static final class Acquire extends KeyedCommand
    {
        @Option(names = "--job", required = true, description = "The job id that would build it.")
        String job;

        @Override
        void send(final CacheKey cacheKey, final PrintWriter out)
        {
            final Acquisition answer = cluster.call((client) -> client.acquire(cacheKey, job));
            if (answer instanceof Acquisition.Hit hit)
            {
                out.println("hit " + describe(hit.entry()));
            }
            else if (answer instanceof Acquisition.Claimed)
            {
                out.println("claimed");
            }
            else if (answer instanceof Acquisition.Wait wait)
            {
                out.println("wait " + wait.pendingJobId());
            }
        }
    }

    /** {@code lookup}: the key's entry, or {@code absent}. */
    @Command(name = "lookup", mixinStandardHelpOptions = true,
        description = "Prints the key's entry ('pending <job>' or 'materialized ...') or 'absent'.")
    static final class Lookup extends KeyedCommand
    {
        @Override
        void send(final CacheKey cacheKey, final PrintWriter out)
        {
            final CacheEntry entry = cluster.call((client) -> client.lookup(cacheKey));
            out.println(entry == null ? "absent" : describe(entry));
        }
    }

    /** {@code abort}: gives up a job's claim. */
    @Command(name = "abort", mixinStandardHelpOptions = true,
        description = "Aborts a job's claim on a key: prints ABORTED, or STALE when the job does not hold it.")
    static final class Abort extends KeyedCommand
    {
        @Option(names = "--job", required = true, description = "The job holding the claim.")
        String job;

        @Override
        void send(final CacheKey cacheKey, final PrintWriter out)
        {
            final AbortOutcome outcome = cluster.call((client) -> client.abortMaterialization(cacheKey, job));
            out.println(outcome.name());
        }
    }

    /** {@code invalidate}: removes a key's entry. */
    @Command(name = "invalidate", mixinStandardHelpOptions = true,
        description = "Removes a key's entry: prints 'removed <key> <entry>' per entry removed (none: nothing).")
    static final class Invalidate extends KeyedCommand
    {
        @Override
        void send(final CacheKey cacheKey, final PrintWriter out)
        {
            final List<RemovedEntry> removed = cluster.call((client) -> client.invalidate(cacheKey));
            for (final RemovedEntry entry : removed)
            {
                out.println("removed " + describe(entry.key()) + " " + describe(entry.entry()));
            }
        }
    }

    /** {@code entries}: every entry, one line each. */
    @Command(name = "entries", mixinStandardHelpOptions = true,
        description = "Prints every entry, one line each: '<session>/<cache> <entry>', sorted; then the count.")
    static final class Entries extends ClientCommand
    {
        @Override
        void send(final PrintWriter out)
        {
            final Map<CacheKey, CacheEntry> entries = cluster.call(RegistryClusterClient::entries);
            entries.entrySet().stream()
                .map((e) -> describe(e.getKey()) + " " + describe(e.getValue()))
                .sorted()
                .forEach(out::println);
            out.println(entries.size() + (entries.size() == 1 ? " entry" : " entries"));
        }
    }

    static String describe(final CacheKey key)
    {
        return key.sessionId() + "/" + key.cacheId();
    }

    static String describe(final CacheEntry entry)
    {
        if (entry instanceof Pending pending)
        {
            return "pending " + pending.jobId();
        }
        final Materialized materialized = (Materialized) entry;
        final StringBuilder out = new StringBuilder("materialized ").append(materialized.jobId())
            .append(" at ").append(materialized.materializedAtMs())
            .append(" partitions ").append(materialized.locations().size()).append(':');
        for (final PartitionLocation location : materialized.locations())
        {
            out.append(' ').append(location.executorId()).append(':').append(location.stageId()).append('/')
                .append(location.partitionId());
        }
        return out.toString();
    }
}
