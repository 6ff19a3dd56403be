package dev.offcache.server.cli;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.offcache.range.engine.RangeCacheBuilder;
import dev.offcache.range.origin.FileSystemOrigin;
import dev.offcache.server.http.L2HttpServer;
import dev.offcache.server.http.TransportKind;
import dev.offcache.server.s3.BucketOrigins;
import dev.offcache.server.s3.S3WriteMode;
import dev.offcache.server.tier.SsdTier;
import dev.offcache.server.tier.TieredBlockStore;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/**
 * The flags of {@code offcache-server} and what their values mean: every {@code @Option} (declared in the order the
 * command has always listed them; {@code --help} groups them by {@link OffcacheServerCommand#HELP_SECTIONS}), and the
 * readers that turn a flag's text into the address, buckets or names it stands for. A reader refuses a malformed
 * value with {@link #invalid}, naming the flag and its variable.
 *
 * <p>{@link OffcacheServerCommand} extends it, so the parsed values are read as the command's own fields;
 * {@link FlagChecks} holds the checks across flags, {@link OriginFactory} the origin they choose.
 */
abstract class ServerOptions
{
    @Option(names = EnvironmentDefaults.CONFIG, paramLabel = "FILE",
        description = "Properties file of settings, keys named as the flags without the dashes (ram-mb=4096); a " +
            "flag wins over its environment variable, which wins over the file (env OFFCACHE_CONFIG).")
    Path config;

    @Option(names = "--listen", defaultValue = "127.0.0.1:8080", paramLabel = "HOST:PORT",
        description = "Address to listen on (env OFFCACHE_LISTEN). Default: ${DEFAULT-VALUE}.")
    String listen;

    @Option(names = "--origin-dir", paramLabel = "DIR",
        description = "Local directory served as the origin (env OFFCACHE_ORIGIN_DIR). Default: a sample " +
            "directory under the temp dir, created with a few objects; implies a generated API key.")
    Path originDir;

    @Option(names = "--http-origin", paramLabel = "URL",
        description = "HTTP(S) server whose objects are read as URL + key with HEAD and Range GETs, e.g. a static " +
            "file server or another offcache-server with auth disabled (env OFFCACHE_HTTP_ORIGIN). Excludes " +
            "--origin-dir and --s3-bucket.")
    String httpOrigin;

    @Option(names = "--s3-endpoint", paramLabel = "URL",
        description = "S3-compatible endpoint of an S3 origin, e.g. https://s3.eu-west-1.amazonaws.com or " +
            "http://127.0.0.1:9000; path-style addressing (env OFFCACHE_S3_ENDPOINT). Needs --s3-bucket.")
    String s3Endpoint;

    @Option(names = "--s3-bucket", paramLabel = "BUCKET[,BUCKET...]",
        description = "Bucket(s) of --s3-endpoint served as the origin; selects the S3 origin instead of a " +
            "directory (env OFFCACHE_S3_BUCKET). Several (lake,logs) share one connection pool; each is served by " +
            "the S3 API under its own name and by /obj as BUCKET/KEY.")
    String s3Bucket;

    @Option(names = "--bucket-dirs", paramLabel = "NAME=DIR[,NAME=DIR...]",
        description = "Local directories served as named buckets, beside --s3-bucket's or alone (env " +
            "OFFCACHE_BUCKET_DIRS). With more than one bucket in all, the S3 API serves each under its name and /obj " +
            "reads BUCKET/KEY. Excludes --origin-dir and --http-origin.")
    String bucketDirs;

    @Option(names = "--s3-region", defaultValue = "us-east-1", paramLabel = "REGION",
        description = "Signing region of the S3 origin (env OFFCACHE_S3_REGION). Default: ${DEFAULT-VALUE}.")
    String s3Region;

    @Option(names = "--s3-access-key", paramLabel = "KEY",
        description = "Access key of the S3 origin (env OFFCACHE_S3_ACCESS_KEY; prefer the environment). " +
            "Without both keys the AWS SDK's default credential chain is used (AWS_* variables, profile, role).")
    String s3AccessKey;

    @Option(names = "--s3-secret-key", paramLabel = "SECRET",
        description = "Secret key of the S3 origin (env OFFCACHE_S3_SECRET_KEY; prefer the environment).")
    String s3SecretKey;

    @Option(names = "--disk-path", paramLabel = "DIR",
        description = "SSD tier directory, kept across restarts (env OFFCACHE_DISK_PATH). Default: a temporary " +
            "directory deleted at exit.")
    Path diskPath;

    @Option(names = "--ram-mb",
        defaultValue = "" + (TieredBlockStore.Context.DEFAULT_RAM_CAPACITY_BYTES >> 20), paramLabel = "MB",
        description = "RAM tier capacity (env OFFCACHE_RAM_MB). Default: ${DEFAULT-VALUE}.")
    int ramMb;

    @Option(names = "--disk-mb", defaultValue = "" + (TieredBlockStore.Context.DEFAULT_SSD_CAPACITY_BYTES >> 20),
        paramLabel = "MB",
        description = "SSD tier capacity, headers included (env OFFCACHE_DISK_MB). Default: ${DEFAULT-VALUE}.")
    long diskMb;

    @Option(names = "--ssd-scrub-mb-per-s",
        defaultValue = "" + (TieredBlockStore.Context.SERVER_SSD_SCRUB_BYTES_PER_SECOND >> 20),
        paramLabel = "MB",
        description = "SSD bytes per second re-read and CRC-checked in the background while nothing is being " +
            "spilled, so a block damaged after its first check is found even though it is sent with sendfile; 0 " +
            "turns it off (env OFFCACHE_SSD_SCRUB_MB_PER_S). Default: ${DEFAULT-VALUE}.")
    int ssdScrubMbPerS;

    @Option(names = "--block-size-kb", defaultValue = "" + (RangeCacheBuilder.DEFAULT_BLOCK_SIZE >> 10),
        paramLabel = "KB", description = "Block size, a power of two from " + (RangeCacheBuilder.MIN_BLOCK_SIZE >> 10) +
            " to " + (RangeCacheBuilder.MAX_BLOCK_SIZE >> 10) + " (env OFFCACHE_BLOCK_SIZE_KB). " +
            "Default: ${DEFAULT-VALUE}.")
    int blockSizeKb;

    @Option(names = "--memory-budget-mb", defaultValue = "" + (L2HttpServer.Context.DEFAULT_MEMORY_BUDGET_BYTES >> 20),
        paramLabel = "MB",
        description = "Response bytes in flight across all connections (env OFFCACHE_MEMORY_BUDGET_MB). " +
            "Default: ${DEFAULT-VALUE}.")
    long memoryBudgetMb;

    @Option(names = "--api-keys", paramLabel = "KEY[,KEY...]",
        description = "Accepted bearer API keys, at least 16 characters each (env OFFCACHE_API_KEYS; prefer the " +
            "environment: flags show up in process lists).")
    String apiKeys;

    @Option(names = "--disable-auth", defaultValue = "false", fallbackValue = "true", arity = "0..1",
        description = "Serve without authentication (env OFFCACHE_DISABLE_AUTH).")
    boolean disableAuth;

    @Option(names = "--allowed-prefixes", paramLabel = "PREFIX[,PREFIX...]",
        description = "Object key prefixes clients may read; empty allows all (env OFFCACHE_ALLOWED_PREFIXES).")
    String allowedPrefixes;

    @Option(names = "--s3-api-listen", paramLabel = "HOST:PORT",
        description = "Address of the S3 API, a listener of its own beside --listen: any S3 client (AWS SDKs, " +
            "S3A, boto3, the AWS CLI) reads through the cache with this as its endpoint (env " +
            "OFFCACHE_S3_API_LISTEN). Default: off; the embedded default listens on the port after --listen's.")
    String s3ApiListen;

    @Option(names = "--s3-api-keys", paramLabel = "ID:SECRET[,ID:SECRET...]",
        description = "Access-key pairs S3 clients sign with (AWS Signature Version 4); an id is 3-128 letters, " +
            "digits, '.', '_' or '-', a secret 16-128 printable characters (env OFFCACHE_S3_API_KEYS; prefer the " +
            "environment). Required with --s3-api-listen unless --disable-auth; generated by the embedded default.")
    String s3ApiKeys;

    @Option(names = "--s3-api-bucket", paramLabel = "BUCKET",
        description = "Bucket name the S3 API serves the origin under (env OFFCACHE_S3_API_BUCKET). Default: the " +
            "S3 origin's own bucket (--s3-bucket), else offcache.")
    String s3ApiBucket;

    @Option(names = "--s3-api-domain", paramLabel = "DOMAIN",
        description = "Base domain of virtual-host style requests, BUCKET.DOMAIN (env OFFCACHE_S3_API_DOMAIN). " +
            "Default: path-style only (/BUCKET/KEY), which every S3 client can be set to.")
    String s3ApiDomain;

    @Option(names = "--s3-api-region", paramLabel = "REGION",
        description = "Region the S3 API reports for its bucket; requests signed for any region are accepted " +
            "(env OFFCACHE_S3_API_REGION). Default: --s3-region for an S3 origin, else us-east-1.")
    String s3ApiRegion;

    @Option(names = "--s3-api-writes", defaultValue = "REFUSE", paramLabel = "MODE",
        description = "S3 writes: ${COMPLETION-CANDIDATES} (env OFFCACHE_S3_API_WRITES). REFUSE answers " +
            "AccessDenied, as a read-only endpoint; PASS_THROUGH writes PutObject, DeleteObject and (to an S3 " +
            "origin) multipart uploads to the origin and warms the cache with the new object. PutObject and " +
            "UploadPart bodies to an S3 origin are streamed, whatever their size; a directory or HTTP origin's " +
            "PutObject body must fit --max-body-kb. Default: ${DEFAULT-VALUE}.")
    S3WriteMode s3ApiWrites;

    @Option(names = "--transport", defaultValue = "AUTO", paramLabel = "KIND",
        description = "Netty transport: ${COMPLETION-CANDIDATES} (env OFFCACHE_TRANSPORT). AUTO picks epoll, " +
            "then io_uring, then NIO. Default: ${DEFAULT-VALUE}.")
    TransportKind transport;

    @Option(names = "--io-threads", defaultValue = "" + L2HttpServer.Context.DEFAULT_IO_THREADS, paramLabel = "N",
        description = "Event loop threads, 0 for 2 x cores (env OFFCACHE_IO_THREADS). Default: ${DEFAULT-VALUE}.")
    int ioThreads;

    @Option(names = "--fetch-threads", defaultValue = "" + FileSystemOrigin.DEFAULT_IO_THREADS, paramLabel = "N",
        description = "The local origin's (--origin-dir) read threads (env OFFCACHE_FETCH_THREADS). No thread " +
            "waits for a response: bodies stream from the engine on the event loops. Default: ${DEFAULT-VALUE}.")
    int fetchThreads;

    @Option(names = "--ssd-read-threads", defaultValue = "" + TieredBlockStore.Context.DEFAULT_SSD_READ_THREADS,
        paramLabel = "N",
        description = "Threads that read SSD blocks not yet verified since start (read, CRC-check, promote to RAM) " +
            "(env OFFCACHE_SSD_READ_THREADS). Default: ${DEFAULT-VALUE}.")
    int ssdReadThreads;

    @Option(names = "--ssd-open-files", defaultValue = "" + SsdTier.DEFAULT_OPEN_FILES, paramLabel = "N",
        description = "Verified SSD block files kept open between sends (sendfile without an open and close per " +
            "chunk); 0 opens one per chunk (env OFFCACHE_SSD_OPEN_FILES). Default: ${DEFAULT-VALUE}.")
    int ssdOpenFiles;

    // The engine settings below derive the same OFFCACHE_* variable names the range-cache engine reads itself; their
    // defaults are the engine's (RangeCacheBuilder's constants) and the engine checks them (see ENGINE_FLAGS).
    @Option(names = "--fetch-permits", defaultValue = "" + RangeCacheBuilder.L2_FETCH_PERMITS, paramLabel = "N",
        description = "Origin GETs in flight at once, demand and prefetch together (env OFFCACHE_FETCH_PERMITS). " +
            "Default: ${DEFAULT-VALUE}.")
    int fetchPermits;

    @Option(names = "--demand-reserved-permits", defaultValue = "" + RangeCacheBuilder.L2_DEMAND_RESERVED_PERMITS,
        paramLabel = "N",
        description = "Of those, how many only demand reads may use, so prefetch never starves them; less than " +
            "--fetch-permits (env OFFCACHE_DEMAND_RESERVED_PERMITS). Default: ${DEFAULT-VALUE}.")
    int demandReservedPermits;

    @Option(names = "--max-coalesced-get-bytes", defaultValue = "" + RangeCacheBuilder.DEFAULT_MAX_COALESCED_GET_BYTES,
        paramLabel = "BYTES", description = "Largest origin GET that contiguous missing blocks are merged into; " +
            "from one block to " + RangeCacheBuilder.MAX_COALESCED_GET_BYTES_LIMIT + " (env " +
            "OFFCACHE_MAX_COALESCED_GET_BYTES). Default: ${DEFAULT-VALUE}.")
    int maxCoalescedGetBytes;

    @Option(names = "--origin-timeout-ms", defaultValue = "" + RangeCacheBuilder.DEFAULT_ORIGIN_TIMEOUT_MS,
        paramLabel = "MS",
        description = "How long one origin request may take before it fails (env OFFCACHE_ORIGIN_TIMEOUT_MS). " +
            "Default: ${DEFAULT-VALUE}.")
    long originTimeoutMs;

    @Option(names = "--max-objects", defaultValue = "" + RangeCacheBuilder.DEFAULT_MAX_OBJECTS, paramLabel = "N",
        description = "Objects whose size and identity the engine remembers (env OFFCACHE_MAX_OBJECTS). " +
            "Default: ${DEFAULT-VALUE}.")
    int maxObjects;

    @Option(names = "--range-counters-file", paramLabel = "FILE",
        description = "Memory-mapped file the engine publishes its counters to, readable from outside the " +
            "process (env OFFCACHE_RANGE_COUNTERS_FILE). Default: none.")
    Path rangeCountersFile;

    @Option(names = "--server-counters-file", paramLabel = "FILE",
        description = "Memory-mapped file the server publishes its own counters to (HTTP front and tiers, the " +
            "offcache_server_* counters), readable from outside the process (env OFFCACHE_SERVER_COUNTERS_FILE). " +
            "Default: none (in memory).")
    Path serverCountersFile;

    @Option(names = "--max-connections",
        defaultValue = "" + L2HttpServer.Context.DEFAULT_MAX_CONNECTIONS, paramLabel = "N",
        description = "Most open client connections (env OFFCACHE_MAX_CONNECTIONS). Default: ${DEFAULT-VALUE}.")
    int maxConnections;

    @Option(names = "--max-connections-per-address",
        defaultValue = "" + L2HttpServer.Context.DEFAULT_MAX_CONNECTIONS_PER_ADDRESS, paramLabel = "N",
        description = "Most open connections from one client address, so one client cannot take every slot " +
            "(env OFFCACHE_MAX_CONNECTIONS_PER_ADDRESS). Default: ${DEFAULT-VALUE}.")
    int maxConnectionsPerAddress;

    @Option(names = "--request-read-timeout-ms",
        defaultValue = "" + L2HttpServer.Context.DEFAULT_REQUEST_READ_TIMEOUT_MS,
        paramLabel = "MS",
        description = "How long a client may take to send a whole request from its first byte; a connection " +
            "without one by then is closed (env OFFCACHE_REQUEST_READ_TIMEOUT_MS). Default: ${DEFAULT-VALUE}.")
    int requestReadTimeoutMs;

    @Option(names = "--prefetch-queue", defaultValue = "" + L2HttpServer.Context.DEFAULT_PREFETCH_QUEUE_CAPACITY,
        paramLabel = "N",
        description = "Prefetch requests that may wait; more are dropped (env OFFCACHE_PREFETCH_QUEUE). " +
            "Default: ${DEFAULT-VALUE}.")
    int prefetchQueue;

    @Option(names = "--prefetch-threads",
        defaultValue = "" + L2HttpServer.Context.DEFAULT_PREFETCH_THREADS, paramLabel = "N",
        description = "Prefetch worker threads (env OFFCACHE_PREFETCH_THREADS). Default: ${DEFAULT-VALUE}.")
    int prefetchThreads;

    @Option(names = "--max-ranges", defaultValue = "" + L2HttpServer.Context.DEFAULT_MAX_RANGES, paramLabel = "N",
        description = "Most ranges in one POST /ranges (env OFFCACHE_MAX_RANGES). Default: ${DEFAULT-VALUE}.")
    int maxRanges;

    @Option(names = "--max-body-kb",
        defaultValue = "" + (L2HttpServer.Context.DEFAULT_MAX_BODY_BYTES >> 10), paramLabel = "KB",
        description = "Largest request body held whole, from " + (L2HttpServer.Context.MIN_MAX_BODY_BYTES >> 10) +
            " to " + (L2HttpServer.Context.MAX_BODY_BYTES_LIMIT >> 10) + "; the S3 API's pass-through PutObject and " +
            "UploadPart to an S3 origin are streamed and not bound by it (env OFFCACHE_MAX_BODY_KB). " +
            "Default: ${DEFAULT-VALUE}.")
    int maxBodyKb;

    @Option(names = "--max-key-length",
        defaultValue = "" + L2HttpServer.Context.DEFAULT_MAX_KEY_LENGTH, paramLabel = "N",
        description = "Longest object key in UTF-8 bytes, at most " + L2HttpServer.Context.MAX_KEY_LENGTH_LIMIT +
            " (env OFFCACHE_MAX_KEY_LENGTH). " +
            "Default: ${DEFAULT-VALUE}.")
    int maxKeyLength;

    @Option(names = "--shutdown-grace-seconds", defaultValue = "" + L2HttpServer.Context.DEFAULT_SHUTDOWN_GRACE_SECONDS,
        paramLabel = "S",
        description = "How long shutdown lets responses finish (env OFFCACHE_SHUTDOWN_GRACE_SECONDS). " +
            "Default: ${DEFAULT-VALUE}.")
    int shutdownGraceSeconds;

    @Option(names = "--shutdown-unready-seconds",
        defaultValue = "" + L2HttpServer.Context.DEFAULT_UNREADY_DELAY_SECONDS,
        paramLabel = "S",
        description = "At shutdown, how long /ready answers 503 while the listeners still accept and serve, so a " +
            "load balancer stops sending first; then the listeners close and responses drain (env " +
            "OFFCACHE_SHUTDOWN_UNREADY_SECONDS). Set it to the balancer's health-check interval times its " +
            "failure threshold. Default: ${DEFAULT-VALUE}.")
    int shutdownUnreadySeconds;

    @Option(names = "--log-format", defaultValue = "TEXT", paramLabel = "FORMAT",
        description = "Log lines on stderr: ${COMPLETION-CANDIDATES}. TEXT is one line per event starting with a UTC " +
            "timestamp, JSON one JSON object per line (Logback's JsonEncoder); -Dlogback.configurationFile=FILE in " +
            "OFFCACHE_JAVA_OPTS replaces either (env OFFCACHE_LOG_FORMAT). Default: ${DEFAULT-VALUE}.")
    LogFormat logFormat;

    @Option(names = "--access-log", defaultValue = "false", fallbackValue = "true", arity = "0..1",
        description = "Write one line per request to the logger offcache.access (INFO, in --log-format): method, " +
            "target, range, status, bytes sent, microseconds, API, client, and 'cut' for a response cut short; " +
            "written when the response completes. Off by default; no cost when off (env OFFCACHE_ACCESS_LOG). " +
            "Default: ${DEFAULT-VALUE}.")
    boolean accessLog;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    // ---------------------------------------------------------------------------------------------------------------
    // Listener
    // ---------------------------------------------------------------------------------------------------------------

    String listenHost()
    {
        return hostOf("--listen", listen);
    }

    int listenPort()
    {
        return portOf("--listen", listen);
    }

    private String hostOf(final String flag, final String value)
    {
        final int colon = value.lastIndexOf(':');
        if (colon <= 0)
        {
            throw invalid(flag, "must be HOST:PORT, was '" + value + "'");
        }
        return value.substring(0, colon);
    }

    private int portOf(final String flag, final String value)
    {
        hostOf(flag, value);
        final String port = value.substring(value.lastIndexOf(':') + 1);
        try
        {
            final int number = Integer.parseInt(port);
            if (number < 0 || number > 65535)
            {
                throw new NumberFormatException();
            }
            return number;
        }
        catch (final NumberFormatException ex)
        {
            throw invalid(flag, "port must be 0-65535, was '" + port + "'");
        }
    }

    List<String> allowedPrefixes()
    {
        final List<String> prefixes = new ArrayList<>();
        if (null != allowedPrefixes)
        {
            for (final String prefix : allowedPrefixes.split(","))
            {
                if (!prefix.isBlank())
                {
                    prefixes.add(prefix.trim());
                }
            }
        }
        return prefixes;
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Origin
    // ---------------------------------------------------------------------------------------------------------------

    boolean isEmbedded()
    {
        return null == originDir && null == s3Bucket && null == httpOrigin && null == bucketDirs;
    }

    /** The buckets of --s3-bucket, in the order given. */
    List<String> s3Buckets()
    {
        final List<String> names = new ArrayList<>();
        if (null != s3Bucket)
        {
            for (final String bucket : s3Bucket.split(","))
            {
                names.add(bucket.trim());
            }
        }
        return names;
    }

    /** The buckets of --bucket-dirs, in the order given. */
    Map<String, Path> bucketDirectories()
    {
        final Map<String, Path> dirs = new LinkedHashMap<>();
        if (null != bucketDirs)
        {
            for (final String entry : bucketDirs.split(","))
            {
                final int equals = entry.indexOf('=');
                dirs.put(entry.substring(0, equals).trim(), Path.of(entry.substring(equals + 1).trim()));
            }
        }
        return dirs;
    }

    URI httpOriginUri()
    {
        try
        {
            final URI uri = new URI(httpOrigin);
            if (!("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) || null == uri.getHost() ||
                null != uri.getRawQuery() || null != uri.getRawFragment())
            {
                throw invalid("--http-origin", "must be an http or https URL with a host and no query, was '" +
                    httpOrigin + "'");
            }
            return uri;
        }
        catch (final URISyntaxException ex)
        {
            throw invalid("--http-origin", "is not a URL: '" + httpOrigin + "'");
        }
    }

    URI s3EndpointUri()
    {
        try
        {
            final URI uri = new URI(s3Endpoint);
            if (!("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) || null == uri.getHost())
            {
                throw invalid("--s3-endpoint", "must be an http or https URL with a host, was '" + s3Endpoint + "'");
            }
            return uri;
        }
        catch (final URISyntaxException ex)
        {
            throw invalid("--s3-endpoint", "is not a URL: '" + s3Endpoint + "'");
        }
    }

    // ---------------------------------------------------------------------------------------------------------------
    // S3 API
    // ---------------------------------------------------------------------------------------------------------------

    /**
     * Whether the S3 API listens: asked for, or the embedded default.
     *
     * @return true when it does.
     */
    boolean s3ApiEnabled()
    {
        return null != s3ApiListen || isEmbedded();
    }

    String s3ApiHost()
    {
        return null != s3ApiListen ? hostOf("--s3-api-listen", s3ApiListen) : listenHost();
    }

    /** The S3 API's port: as given, or for the embedded default the port after --listen's (any free one after 0). */
    int s3ApiPort()
    {
        if (null != s3ApiListen)
        {
            return portOf("--s3-api-listen", s3ApiListen);
        }
        final int port = listenPort();
        return port == 0 || port == 65535 ? 0 : port + 1;
    }

    /** The bucket name the S3 API serves: as given, the S3 origin's own, or {@code offcache}. */
    String s3ApiBucketName()
    {
        if (null != s3ApiBucket)
        {
            return s3ApiBucket;
        }
        final List<String> s3Names = s3Buckets();
        if (!s3Names.isEmpty())
        {
            return s3Names.get(0);
        }
        return bucketDirectories().isEmpty() ? "offcache" : bucketDirectories().keySet().iterator().next();
    }

    String s3ApiRegionName()
    {
        if (null != s3ApiRegion)
        {
            return s3ApiRegion;
        }
        return null != s3Bucket ? s3Region : "us-east-1";
    }

    /**
     * The bucket names the S3 API serves: the one bucket's name, or every bucket of --s3-bucket and --bucket-dirs,
     * sorted (as {@link BucketOrigins} and {@code ListBuckets} give them).
     *
     * @return the names.
     */
    List<String> servedBucketNames()
    {
        final List<String> names = new ArrayList<>(s3Buckets());
        names.addAll(bucketDirectories().keySet());
        if (names.size() <= 1)
        {
            return List.of(s3ApiBucketName());
        }
        names.sort(null);
        return names;
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Errors
    // ---------------------------------------------------------------------------------------------------------------

    /**
     * A refusal of a flag's value, naming the flag and its variable (the message tests and operators read).
     *
     * @param flag    the flag.
     * @param problem what is wrong with its value.
     * @return the exception to throw.
     */
    CommandLine.ParameterException invalid(final String flag, final String problem)
    {
        return new CommandLine.ParameterException(spec.commandLine(),
            "Invalid value for " + flag + " (env " + EnvironmentDefaults.variableOf(flag) + "): " + problem,
            spec.findOption(flag), null);
    }
}
