package dev.offcache.tools.l2;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import dev.offcache.range.l2.FallbackReason;
import dev.offcache.range.l2.L2ClientCounters;
import dev.offcache.range.l2.shard.L2Shard;
import dev.offcache.range.l2.shard.ShardedL2Context;
import dev.offcache.range.l2.shard.ShardedL2Client;
import dev.offcache.range.origin.ObjectNotFoundException;
import dev.offcache.tools.ToolCommandLine;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code offcache-l2}: the sharded L2 client ({@link ShardedL2Client}) from a shell, configured like the engine's
 * (every {@code OFFCACHE_L2_*} variable of docs/l2-client.md and docs/l2-sharding.md, {@code --servers} over
 * {@code OFFCACHE_L2_SERVERS}). {@code owner} prints which server a key routes to; {@code get} reads a key (or a
 * range) through its owner and writes the bytes to stdout or a file. The client's origin here refuses every call
 * ({@link NoOrigin}): bytes that did not come from L2 are an error, never a silent read of the real origin,
 * so a {@code get} that succeeds proves the deployment serves the key.
 *
 * <p>Exit status: 0 with the bytes, 1 when no L2 server served them (the reason on stderr), 2 for bad arguments.
 */
@Command(name = "offcache-l2", mixinStandardHelpOptions = true,
    versionProvider = ToolCommandLine.Version.class,
    description = "Reads from the L2 servers as the engine's sharded client would: which server owns a key, and " +
        "its bytes (never from the origin).",
    subcommands = {L2Command.Owner.class, L2Command.Get.class})
public final class L2Command implements Runnable
{
    private static final int CHUNK = 1 << 20;

    private final Map<String, String> env;
    private ShardedL2Client router;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--servers", split = ",", scope = CommandLine.ScopeType.INHERIT,
        description = "The L2 servers, comma-separated (default: " + ShardedL2Context.ENV_SERVERS + "). The API key " +
            "comes from OFFCACHE_L2_API_KEY.")
    List<URI> servers;

    @Option(names = "--timeout-ms", defaultValue = "30000", scope = CommandLine.ScopeType.INHERIT,
        description = "How long one call may take (default ${DEFAULT-VALUE}).")
    long timeoutMs;

    private L2Command(final Map<String, String> env)
    {
        this.env = Map.copyOf(env);
    }

    /**
     * Runs the command line with this process's environment and exits with its status.
     *
     * @param args the arguments.
     */
    public static void main(final String[] args)
    {
        System.exit(commandLine(System.getenv()).execute(args));
    }

    /**
     * The command line over an environment, for tests and embedding: {@code execute} returns the exit status.
     *
     * @param env where the {@code OFFCACHE_L2_*} settings come from.
     * @return a new command line.
     */
    public static CommandLine commandLine(final Map<String, String> env)
    {
        return ToolCommandLine.of(new L2Command(env), "offcache-l2");
    }

    @Override
    public void run()
    {
        throw new CommandLine.ParameterException(spec.commandLine(), "name a command: owner or get");
    }

    ShardedL2Client router()
    {
        router = newRouter();
        return router;
    }

    private ShardedL2Client newRouter()
    {
        // a slow first answer (a cold JVM, a busy machine) is still the L2's answer here, not a reason to give up or
        // to mark a server unhealthy: the engine's 500 ms abandon and health timeouts become --timeout-ms, unless
        // OFFCACHE_L2_ABANDON_TIMEOUT_MS / OFFCACHE_L2_HEALTH_TIMEOUT_MS say otherwise
        final ShardedL2Context ctx = new ShardedL2Context()
            .origin(new NoOrigin())
            .client((client) -> client.abandonTimeout(Duration.ofMillis(timeoutMs)))
            .healthTimeout(Duration.ofMillis(timeoutMs))
            .fromEnvironment(env);
        if (servers != null)
        {
            ctx.servers(servers);
        }
        return new ShardedL2Client(ctx);
    }

    <T> T await(final CompletableFuture<T> call, final String what)
    {
        try
        {
            return call.get(timeoutMs, TimeUnit.MILLISECONDS);
        }
        catch (final TimeoutException ex)
        {
            throw new ToolCommandLine.Unavailable(what + ": no answer within " + timeoutMs + " ms");
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new ToolCommandLine.Unavailable(what + ": interrupted");
        }
        catch (final ExecutionException ex)
        {
            final Throwable cause = ex.getCause();
            if (cause instanceof ObjectNotFoundException)
            {
                throw new ToolCommandLine.Unavailable(what + ": not found (" + cause.getMessage() + ")");
            }
            throw new ToolCommandLine.Unavailable(what + ": not served by L2 (" + cause.getMessage() + ")" +
                fallbacks());
        }
    }

    /** Why the per-server clients fell back so far, e.g. {@code ; fallbacks: head connect=1}. */
    private String fallbacks()
    {
        final StringBuilder out = new StringBuilder();
        if (router != null)
        {
            for (final String op : List.of("read", "head"))
            {
                if (router.noServer(op) > 0)
                {
                    out.append(out.length() == 0 ? "; fallbacks:" : ",").append(" no server available for ")
                        .append(router.noServer(op)).append(' ').append(op).append("(s)");
                }
            }
            for (final L2Shard shard : router.servers())
            {
                for (final FallbackReason reason : FallbackReason.values())
                {
                    final long heads = shard.client().metrics().headFallbacks(reason);
                    final long reads = shard.client().metrics().readFallbacks(reason);
                    if (heads + reads > 0)
                    {
                        out.append(out.length() == 0 ? "; fallbacks:" : ",").append(' ').append(shard.id())
                            .append(heads > 0 ? " head " + reason + "=" + heads : "")
                            .append(reads > 0 ? " read " + reason + "=" + reads : "");
                    }
                }
            }
        }
        return out.toString();
    }

    /** {@code owner}: the server each key routes to now. */
    @Command(name = "owner", mixinStandardHelpOptions = true,
        description = "Prints '<key> <server>' for each key: the highest-weight available server (rendezvous " +
            "hashing), where the engine's reads of that key go.")
    static final class Owner implements Runnable
    {
        @CommandLine.ParentCommand
        L2Command parent;

        @Parameters(arity = "1..*", description = "Object keys, e.g. lake/tables/t/part-0.parquet.")
        List<String> keys;

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public void run()
        {
            final PrintWriter out = spec.commandLine().getOut();
            try (ShardedL2Client router = parent.router())
            {
                for (final String key : keys)
                {
                    final L2Shard owner = router.ownerOf(key);
                    out.println(key + " " + (owner == null ? "none" : owner.id()));
                }
            }
            out.flush();
        }
    }

    /** {@code get}: a key's bytes through its owner. */
    @Command(name = "get", mixinStandardHelpOptions = true,
        description = "Reads a key (or --range) through its owning L2 server and writes the bytes to stdout (or " +
            "--output); a summary line on stderr. Fails (exit 1) when L2 did not serve them.")
    static final class Get implements Runnable
    {
        @CommandLine.ParentCommand
        L2Command parent;

        @Parameters(index = "0", description = "The object key, e.g. lake/tables/t/part-0.parquet.")
        String key;

        @Option(names = "--range", description = "FIRST-LAST, inclusive byte positions (as an HTTP Range); " +
            "default the whole object.")
        String range;

        @Option(names = {"-o", "--output"}, description = "Write the bytes to this file instead of stdout.")
        Path output;

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public void run()
        {
            try (ShardedL2Client router = parent.router())
            {
                final L2Shard owner = router.ownerOf(key);
                if (owner == null)
                {
                    throw new ToolCommandLine.Unavailable(key + ": no L2 server is available");
                }
                final long first;
                final long end;
                if (range == null)
                {
                    first = 0;
                    end = parent.await(router.size(key), key + " (size, from " + owner.id() + ")");
                }
                else
                {
                    final long[] bounds = parseRange(range);
                    first = bounds[0];
                    end = bounds[1] + 1;
                }
                final long copied;
                try (OutputStream sink = output == null ? new NonClosingStream(System.out) :
                    Files.newOutputStream(output))
                {
                    copied = copy(router, owner, first, end, sink);
                }
                catch (final IOException ex)
                {
                    throw new UncheckedIOException(ex);
                }
                final long fallbacks = owner.client().metrics().readFallbacksTotal();
                if (fallbacks > 0)
                {
                    throw new ToolCommandLine.Unavailable(key + ": " + fallbacks + " read(s) fell back from " +
                        owner.id());
                }
                final PrintWriter err = spec.commandLine().getErr();
                final long hits = owner.client().metrics().get(L2ClientCounters.Counter.L2_HITS);
                err.println("offcache-l2: " + key + ": " + copied + " bytes (" + first + "-" + (first + copied - 1) +
                    ") from " + owner.id() + ", l2 hits " + hits);
                err.flush();
            }
        }

        private long copy(final ShardedL2Client router, final L2Shard owner, final long first, final long end,
            final OutputStream sink) throws IOException
        {
            final ByteBuffer buffer = ByteBuffer.allocate(CHUNK);
            long position = first;
            while (position < end)
            {
                buffer.clear().limit((int) Math.min(CHUNK, end - position));
                final int n = parent.await(router.read(key, position, buffer),
                    key + " (bytes " + position + "-, from " + owner.id() + ")");
                if (n <= 0)
                {
                    break;
                }
                sink.write(buffer.array(), 0, n);
                position += n;
            }
            sink.flush();
            return position - first;
        }

        static long[] parseRange(final String range)
        {
            final int dash = range.indexOf('-');
            try
            {
                final long first = Long.parseLong(range.substring(0, dash));
                final long last = Long.parseLong(range.substring(dash + 1));
                if (first >= 0 && last >= first)
                {
                    return new long[] {first, last};
                }
            }
            catch (final NumberFormatException | StringIndexOutOfBoundsException ex)
            {
                // the message below names the flag
            }
            throw new IllegalArgumentException("--range: '" + range + "' is not FIRST-LAST with 0 <= FIRST <= LAST");
        }
    }

    /** stdout, flushed but never closed by a try-with-resources. */
    private static final class NonClosingStream extends java.io.FilterOutputStream
    {
        NonClosingStream(final OutputStream out)
        {
            super(out);
        }

        @Override
        public void write(final byte[] b, final int off, final int len) throws IOException
        {
            out.write(b, off, len);
        }

        @Override
        public void close() throws IOException
        {
            flush();
        }
    }
}
