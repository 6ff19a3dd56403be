package dev.offcache.hadoop.fs;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.offcache.range.metrics.MetricNames;
import dev.offcache.server.cli.OffcacheServerCommand;
import dev.offcache.server.cli.ServerProgram;
import dev.offcache.testkit.s3.S3ProxyServer;
import picocli.CommandLine;

/**
 * A real L2 cache server ({@code cache-server}, started through its own command line, as an operator runs it) in
 * this JVM on 127.0.0.1 and an ephemeral port, in front of a local directory or a bucket of {@link S3ProxyServer}.
 * Small tiers (16 MiB RAM, 64 MiB SSD in a temporary directory deleted at close), a 1 s shutdown grace.
 *
 * <p>Owns the server program; {@link #close()} stops it (reads in flight are cut, later connections refused),
 * which is how tests kill an L2 server.
 */
final class L2Server implements AutoCloseable
{
    private final ServerProgram program;
    private final String apiKey;

    private L2Server(final ServerProgram program, final String apiKey)
    {
        this.program = program;
        this.apiKey = apiKey;
    }

    /**
     * Starts a server whose origin is a local directory.
     *
     * @param dir         the origin directory.
     * @param apiKey      the key it accepts.
     * @param blockSizeKb the server's block size.
     * @return the running server.
     * @throws Exception when it cannot start.
     */
    public static L2Server overDirectory(final Path dir, final String apiKey, final int blockSizeKb)
        throws Exception
    {
        return start(Map.of(), apiKey, blockSizeKb, "--origin-dir", dir.toString());
    }

    /**
     * Starts a server whose origin is a bucket of S3Proxy.
     *
     * @param proxy       the proxy.
     * @param bucket      the bucket.
     * @param apiKey      the key it accepts.
     * @param blockSizeKb the server's block size.
     * @return the running server.
     * @throws Exception when it cannot start.
     */
    public static L2Server overS3(
        final S3ProxyServer proxy, final String bucket, final String apiKey, final int blockSizeKb) throws Exception
    {
        return start(Map.of("OFFCACHE_S3_ACCESS_KEY", S3ProxyServer.ACCESS_KEY,
            "OFFCACHE_S3_SECRET_KEY", S3ProxyServer.SECRET_KEY), apiKey, blockSizeKb,
            "--s3-endpoint", proxy.endpoint().toString(), "--s3-bucket", bucket, "--s3-region", S3ProxyServer.REGION);
    }

    private static L2Server start(
        final Map<String, String> env, final String apiKey, final int blockSizeKb, final String... originArgs)
        throws Exception
    {
        final Map<String, String> environment = new HashMap<>(env);
        environment.put("OFFCACHE_API_KEYS", apiKey);
        final CommandLine commandLine = OffcacheServerCommand.commandLine(environment);
        final StringWriter out = new StringWriter();
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(out, true));
        final List<String> args = new ArrayList<>(List.of("--listen", "127.0.0.1:0", "--ram-mb", "16",
            "--disk-mb", "64", "--block-size-kb", Integer.toString(blockSizeKb), "--shutdown-grace-seconds", "1"));
        args.addAll(List.of(originArgs));
        commandLine.parseArgs(args.toArray(new String[0]));
        final OffcacheServerCommand command = commandLine.getCommand();
        return new L2Server(command.start(), apiKey);
    }

    /**
     * Returns the server's URL, {@code http://127.0.0.1:PORT}.
     *
     * @return the URL.
     */
    public URI url()
    {
        return URI.create("http://127.0.0.1:" + program.server().address().getPort());
    }

    /**
     * Returns the key it accepts.
     *
     * @return the API key.
     */
    public String apiKey()
    {
        return apiKey;
    }

    /**
     * Returns reads the server's engine sent to its origin (GETs, demand and prefetch).
     *
     * @return origin GETs of the server.
     */
    public long originGets()
    {
        return program.cache().metrics().value(MetricNames.ORIGIN_GETS + MetricNames.DEMAND) +
            program.cache().metrics().value(MetricNames.ORIGIN_GETS + MetricNames.PREFETCH);
    }

    /**
     * Returns block lookups the server's engine answered, hits and misses (one per block of every request).
     *
     * @return block requests of the server.
     */
    public long blockRequests()
    {
        return program.cache().metrics().value(MetricNames.BLOCK_HITS) +
            program.cache().metrics().value(MetricNames.BLOCK_MISSES);
    }

    /**
     * Stops the server: new connections are refused, reads in flight are cut after the grace period.
     */
    @Override
    public void close()
    {
        program.close();
    }
}
