package dev.offcache.server.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import dev.offcache.origin.s3.S3Origin;
import dev.offcache.range.config.InvalidSettingException;
import dev.offcache.range.engine.RangeCacheBuilder;
import dev.offcache.range.origin.FileSystemOrigin;
import dev.offcache.range.origin.HttpOrigin;
import dev.offcache.range.origin.ObjectStore;
import dev.offcache.server.http.ApiKeys;
import dev.offcache.server.http.L2HttpServer;
import dev.offcache.server.http.ListenFailedException;
import dev.offcache.server.http.TransportKind;
import dev.offcache.server.metrics.BuildInfo;
import dev.offcache.server.s3.BucketOrigins;
import dev.offcache.server.s3.S3Buckets;
import dev.offcache.server.s3.S3Credentials;
import dev.offcache.server.s3.S3WriteMode;
import dev.offcache.server.tier.SsdTier;
import dev.offcache.server.tier.TieredBlockStore;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import software.amazon.awssdk.http.async.SdkAsyncHttpClient;

/**
 * The {@code offcache-server} program: the shared L2 cache server. Every option can also be set with an
 * {@code OFFCACHE_*} environment variable (see {@link EnvironmentDefaults}); invalid values are refused at start,
 * naming the flag and the variable. With no options it runs the embedded default: a local sample origin, a
 * temporary SSD directory, a random API key, 127.0.0.1:8080.
 */
@Command(
    name = "offcache-server",
    mixinStandardHelpOptions = true,
    abbreviateSynopsis = true,
    versionProvider = OffcacheServerCommand.Version.class,
    sortOptions = false,
    description = {
        "The offcache shared L2 cache server: HTTP byte-range reads over a RAM + SSD tiered cache in front of an " +
        "origin.",
        "Every option can also be set with an environment variable: --foo-bar is OFFCACHE_FOO_BAR.",
        "With no options it serves sample objects from a local directory with a random API key."})
public final class OffcacheServerCommand implements Callable<Integer>
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

    /** {@code --version}: the build's version, the one {@code offcache_build_info} on {@code /metrics} shows. */
    static final class Version implements CommandLine.IVersionProvider
    {
        @Override
        public String[] getVersion()
        {
            return new String[] {"offcache-server " + BuildInfo.VERSION};
        }
    }

    /** The system property the built-in Logback configurations read for the level of {@code offcache.access}. */
    static final String ACCESS_LOG_LEVEL_PROPERTY = "offcache.access.level";

    /** The two built-in log formats, each a Logback configuration in the jar. */
    public enum LogFormat
    {
        /** One line per event: timestamp, level, thread, logger, message. */
        TEXT,
        /** One JSON object per line. */
        JSON;

        /** The classpath resource of its Logback configuration. */
        String configuration()
        {
            return "dev/offcache/server/logback-" + name().toLowerCase(Locale.ROOT) + ".xml";
        }
    }

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    private Map<String, String> env = Map.of();
    private EnvironmentDefaults defaults = new EnvironmentDefaults(Map.of());
    /** Variables the launcher script reads, not the program. */
    private static final List<String> LAUNCHER_VARIABLES =
        List.of("OFFCACHE_JAVA_OPTS", "OFFCACHE_HEAP_MB", "OFFCACHE_YOUNG_MB", "OFFCACHE_DIRECT_MB");

    /**
     * The sections of {@code --help}, each a heading and its options in order; every option is in one (a test holds
     * them to it), so the list reads by topic instead of as one long run.
     */
    static final Map<String, List<String>> HELP_SECTIONS = helpSections();

    private static Map<String, List<String>> helpSections()
    {
        final Map<String, List<String>> sections = new LinkedHashMap<>();
        sections.put("Origin (one of them; none: the embedded sample directory)", List.of("--origin-dir",
            "--http-origin", "--s3-endpoint", "--s3-bucket", "--bucket-dirs", "--s3-region", "--s3-access-key",
            "--s3-secret-key", "--fetch-threads"));
        sections.put("Listener and authentication", List.of("--listen", "--api-keys", "--disable-auth",
            "--allowed-prefixes", "--transport", "--io-threads"));
        sections.put("S3 API (a listener of its own)", List.of("--s3-api-listen", "--s3-api-keys", "--s3-api-bucket",
            "--s3-api-domain", "--s3-api-region", "--s3-api-writes"));
        sections.put("Tiers: RAM and SSD", List.of("--ram-mb", "--disk-path", "--disk-mb", "--ssd-scrub-mb-per-s",
            "--ssd-read-threads", "--ssd-open-files"));
        sections.put("Engine (the same settings and variables as an engine process)", List.of("--block-size-kb",
            "--fetch-permits", "--demand-reserved-permits", "--max-coalesced-get-bytes", "--origin-timeout-ms",
            "--max-objects"));
        sections.put("Requests, connections and shutdown", List.of("--memory-budget-mb", "--max-connections",
            "--max-connections-per-address", "--request-read-timeout-ms", "--max-ranges", "--max-body-kb",
            "--max-key-length", "--prefetch-queue", "--prefetch-threads", "--shutdown-grace-seconds",
            "--shutdown-unready-seconds"));
        sections.put("Logs and counters", List.of("--log-format", "--access-log", "--range-counters-file",
            "--server-counters-file"));
        sections.put("Configuration and help", List.of(EnvironmentDefaults.CONFIG, "--help", "--version"));
        return sections;
    }

    /** {@code --help}'s option list, section by section ({@link #HELP_SECTIONS}). */
    private static String sectionedOptionList(final CommandLine.Help help)
    {
        final StringBuilder out = new StringBuilder();
        for (final Map.Entry<String, List<String>> section : HELP_SECTIONS.entrySet())
        {
            final CommandLine.Help.Layout layout = help.createDefaultLayout();
            for (final String name : section.getValue())
            {
                layout.addOption(help.commandSpec().findOption(name), help.createDefaultParamLabelRenderer());
            }
            out.append(System.lineSeparator()).append(section.getKey()).append(':').append(System.lineSeparator())
                .append(layout);
        }
        return out.toString();
    }

    /** The engine's settings ({@link RangeCacheBuilder}'s method names) each engine flag sets. */
    static final Map<String, String> ENGINE_FLAGS = Map.of(
        "blockSize", "--block-size-kb",
        "fetchPermits", "--fetch-permits",
        "demandReservedPermits", "--demand-reserved-permits",
        "maxCoalescedGetBytes", "--max-coalesced-get-bytes",
        "originTimeout", "--origin-timeout-ms",
        "maxObjects", "--max-objects");

    /** The tiered store's settings ({@link TieredBlockStore.Context}'s method names) each store flag sets. */
    static final Map<String, String> STORE_FLAGS = Map.of(
        "blockSize", "--block-size-kb",
        "ramCapacityBytes", "--ram-mb",
        "ssdCapacityBytes", "--disk-mb",
        "ssdScrubBytesPerSecond", "--ssd-scrub-mb-per-s",
        "ssdReadThreads", "--ssd-read-threads",
        "ssdOpenFiles", "--ssd-open-files");

    /** The HTTP front's settings ({@link L2HttpServer.Context}'s method names) each server flag sets. */
    static final Map<String, String> SERVER_FLAGS = Map.ofEntries(
        Map.entry("memoryBudgetBytes", "--memory-budget-mb"),
        Map.entry("maxKeyLength", "--max-key-length"),
        Map.entry("maxRanges", "--max-ranges"),
        Map.entry("maxBodyBytes", "--max-body-kb"),
        Map.entry("maxConnections", "--max-connections"),
        Map.entry("maxConnectionsPerAddress", "--max-connections-per-address"),
        Map.entry("requestReadTimeout", "--request-read-timeout-ms"),
        Map.entry("prefetchQueueCapacity", "--prefetch-queue"),
        Map.entry("prefetchThreads", "--prefetch-threads"),
        Map.entry("ioThreads", "--io-threads"),
        Map.entry("shutdownGrace", "--shutdown-grace-seconds"),
        Map.entry("unreadyDelay", "--shutdown-unready-seconds"));

    /** How long a shutdown during the start waits for it to stop before it removes the temporary directory. */
    private static final long STOP_DURING_STARTUP_WAIT_MS = 5_000;

    private final CountDownLatch stopped = new CountDownLatch(1);
    private final CountDownLatch startReturned = new CountDownLatch(1);
    private volatile ServerProgram program;
    private volatile boolean stopRequested;
    private volatile boolean startFailed;
    private volatile Path temporaryDisk;

    /**
     * Runs the program.
     *
     * @param args the command line.
     */
    public static void main(final String[] args)
    {
        final Map<String, String> env = System.getenv();
        System.exit(commandLine(env, EnvironmentDefaults.configFileOf(args, env)).execute(args));
    }

    /**
     * A command line wired to an environment, with errors naming both the flag and its variable.
     *
     * @param env the environment.
     * @return the command line.
     */
    public static CommandLine commandLine(final Map<String, String> env)
    {
        return commandLine(env, null);
    }

    /**
     * A command line wired to an environment and a config file (found with
     * {@link EnvironmentDefaults#configFileOf}, since defaults are set before the arguments are parsed).
     *
     * @param env        the environment.
     * @param configFile the {@code --config} file, or null.
     * @return the command line.
     */
    public static CommandLine commandLine(final Map<String, String> env, final Path configFile)
    {
        final EnvironmentDefaults defaults = new EnvironmentDefaults(env, configFile);
        final OffcacheServerCommand command = new OffcacheServerCommand();
        command.env = Map.copyOf(env);
        command.defaults = defaults;
        final CommandLine commandLine = new CommandLine(command);
        commandLine.setDefaultValueProvider(defaults);
        commandLine.getHelpSectionMap().put(CommandLine.Model.UsageMessageSpec.SECTION_KEY_OPTION_LIST,
            OffcacheServerCommand::sectionedOptionList);
        commandLine.setCaseInsensitiveEnumValuesAllowed(true);
        commandLine.setParameterExceptionHandler((ex, args) ->
        {
            final PrintWriter err = ex.getCommandLine().getErr();
            String message = ex.getMessage();
            // a value given on the command line is the flag's, whatever the environment or the file say
            final boolean onCommandLine = ex.getArgSpec() instanceof CommandLine.Model.OptionSpec option &&
                isGiven(option, args);
            if (!onCommandLine && null != ex.getArgSpec() && defaults.isSet(ex.getArgSpec()))
            {
                message += " (set by environment variable " + EnvironmentDefaults.variableOf(ex.getArgSpec()) + ")";
            }
            else if (!onCommandLine && null != ex.getArgSpec() && defaults.isSetByFile(ex.getArgSpec()))
            {
                message += " (set in " + defaults.configFile() + ")";
            }
            err.println("offcache-server: " + message);
            err.println("Try 'offcache-server --help'.");
            return ex.getCommandLine().getCommandSpec().exitCodeOnInvalidInput();
        });
        commandLine.setExecutionExceptionHandler((ex, cl, parsed) ->
        {
            if (ex instanceof StartupException)
            {
                cl.getErr().println("offcache-server: " + ex.getMessage());
                cl.getErr().flush();
                return cl.getCommandSpec().exitCodeOnInvalidInput();
            }
            throw ex;
        });
        return commandLine;
    }

    /** Whether the command line gives an option ({@code --flag VALUE} or {@code --flag=VALUE}). */
    private static boolean isGiven(final CommandLine.Model.OptionSpec option, final String[] args)
    {
        for (final String arg : args)
        {
            for (final String name : option.names())
            {
                if (arg.equals(name) || arg.startsWith(name + "="))
                {
                    return true;
                }
            }
        }
        return false;
    }

    @Override
    public Integer call() throws Exception
    {
        // before the first logger exists (nothing logs while the flags are parsed); an operator's own file wins
        if (null == System.getProperty("logback.configurationFile"))
        {
            System.setProperty("logback.configurationFile", logFormat.configuration());
        }
        if (accessLog)
        {
            System.setProperty(ACCESS_LOG_LEVEL_PROPERTY, "INFO");
        }
        // before the start, so a signal while it runs (the RAM tier's pre-touch takes seconds per GiB) still cleans up
        Runtime.getRuntime().addShutdownHook(new Thread(this::stopOnSignal, "offcache-shutdown"));
        try
        {
            start();
        }
        catch (final StoppedDuringStartup ex)
        {
            // the shutdown hook reports it and the JVM exits with the signal's status
            return 0;
        }
        finally
        {
            startReturned.countDown();
        }
        stopped.await();
        return 0;
    }

    /**
     * The shutdown hook (SIGTERM, SIGINT, or an exit): closes the running program; during the start, it asks the
     * start to stop, waits for it a while (it stops at its next step; the RAM tier's allocation is one step), prints
     * one line and removes the temporary SSD directory, whether or not the start came back.
     */
    private void stopOnSignal()
    {
        stopRequested = true;
        try
        {
            startReturned.await(STOP_DURING_STARTUP_WAIT_MS, TimeUnit.MILLISECONDS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        final ServerProgram running = program;
        if (null != running)
        {
            running.close();
        }
        else if (!startFailed)
        {
            final Path disk = temporaryDisk;
            final PrintWriter err = spec.commandLine().getErr();
            err.println("offcache-server: stopped during start-up, before serving" + (null == disk ? "" :
                "; removed the temporary SSD directory " + disk));
            err.flush();
            if (null != disk)
            {
                ServerProgram.deleteTree(disk);
            }
        }
        stopped.countDown();
    }

    /** A start that a shutdown (a signal) asked to stop: what it had made is released. */
    private static final class StoppedDuringStartup extends RuntimeException
    {
        private static final long serialVersionUID = 1L;

        StoppedDuringStartup()
        {
            super("stopped during start-up", null, false, false);
        }
    }

    /** Throws when a shutdown asked the start to stop (also between the start's own steps in ServerProgram). */
    void stopIfRequested()
    {
        if (stopRequested)
        {
            throw new StoppedDuringStartup();
        }
    }

    /**
     * Checks the options and starts the server (without waiting for it to stop).
     *
     * @return the running program; the caller closes it.
     * @throws Exception when the options are invalid or the server cannot start.
     */
    public ServerProgram start() throws Exception
    {
        try
        {
            return startChecked();
        }
        catch (final StoppedDuringStartup ex)
        {
            throw ex;
        }
        catch (final Exception | Error ex)
        {
            startFailed = true;
            throw ex;
        }
    }

    private ServerProgram startChecked() throws Exception
    {
        validate();
        warnAboutUnknownVariables();
        final PrintWriter out = spec.commandLine().getOut();
        final boolean s3 = null != s3Bucket;
        final boolean http = null != httpOrigin;
        final boolean embedded = isEmbedded();
        final Path dir = embedded ? Path.of(System.getProperty("java.io.tmpdir"), "offcache-origin") : originDir;
        if (embedded)
        {
            SampleObjects.createIfEmpty(dir);
        }
        else if (null != originDir && !Files.isDirectory(dir))
        {
            throw invalid("--origin-dir", "is not a directory: " + dir);
        }
        for (final Map.Entry<String, Path> bucket : bucketDirectories().entrySet())
        {
            if (!Files.isDirectory(bucket.getValue()))
            {
                throw invalid("--bucket-dirs", "bucket " + bucket.getKey() + ": is not a directory: " +
                    bucket.getValue());
            }
        }
        String exampleKey = null;
        ApiKeys keys = null;
        if (!disableAuth)
        {
            if (null != apiKeys && !apiKeys.isBlank())
            {
                keys = ApiKeys.parse(apiKeys);
            }
            else if (embedded)
            {
                exampleKey = HexFormat.of().formatHex(randomBytes(16));
                keys = ApiKeys.parse(exampleKey);
            }
            else
            {
                throw invalid("--api-keys", "no API keys: set OFFCACHE_API_KEYS, or pass --disable-auth");
            }
        }
        S3Credentials s3Keys = null;
        if (s3ApiEnabled() && !disableAuth)
        {
            s3Keys = null != s3ApiKeys ? S3Credentials.parse(s3ApiKeys) : S3Credentials.generate(new SecureRandom());
        }
        // Checked before anything is made, so a refused start leaves nothing behind.
        final long storeBytes = ServerProgram.storeContext(this).directMemoryBytes();
        DirectMemory.check(storeBytes, ramMb);
        new MachineMemory().check(storeBytes, ramMb);
        final boolean diskIsTemp = null == diskPath;
        if (!diskIsTemp)
        {
            requireWritableDirectory(diskPath);
        }
        final Path disk = diskIsTemp ? Files.createTempDirectory("offcache-ssd-") : diskPath;
        temporaryDisk = diskIsTemp ? disk : null;
        final ServerProgram started;
        final ObjectStore origin;
        try
        {
            stopIfRequested();
            if (http)
            {
                origin = new HttpOrigin(httpOriginUri(), Duration.ofMillis(originTimeoutMs));
            }
            else if (s3 || null != bucketDirs)
            {
                origin = bucketOrigin();
            }
            else
            {
                origin = new FileSystemOrigin(dir, fetchThreads);
            }
            started = ServerProgram.start(this, keys, exampleKey, origin, disk, diskIsTemp, s3Keys);
            if (stopRequested)
            {
                started.close();
                throw new StoppedDuringStartup();
            }
        }
        catch (final Exception | Error ex)
        {
            if (diskIsTemp)
            {
                ServerProgram.deleteTree(disk);
            }
            if (ex instanceof ListenFailedException failed)
            {
                final String flag = failed.s3Api() ? "--s3-api-listen" : "--listen";
                throw new StartupException(flag, failed.getMessage() + (failed.inUse() ?
                    ": stop the process listening there or choose another port (port 0 picks a free one)" :
                    ": choose another " + flag + " HOST:PORT"), failed);
            }
            throw ex;
        }
        program = started;
        final String base = "http://" + listenHost() + ":" + started.server().address().getPort();
        out.println("offcache-server listening on " + base + " (transport " + started.server().transport() +
            ", origin " + (origin instanceof BucketOrigins ? origin.toString() : origin.namespace()) +
            ", SSD tier " + disk + (diskIsTemp ? ", temporary" : "") + ")");
        if (null != exampleKey)
        {
            out.println("API key for this run: " + exampleKey);
            out.println("Try it:");
            out.println("  curl -H 'Authorization: Bearer " + exampleKey + "' -r 0-99 " + base + "/obj/" +
                SampleObjects.HELLO);
            out.println("  curl -s -H 'Authorization: Bearer " + exampleKey + "' -o /dev/null -w '%{http_code} " +
                "%{size_download}\\n' " + base + "/obj/" + SampleObjects.RANDOM);
        }
        printS3Api(out, started, s3Keys);
        out.flush();
        return started;
    }

    /**
     * The origin of the buckets of --s3-bucket and --bucket-dirs: the one bucket's own origin, or for several a
     * {@link BucketOrigins} over one origin each (the S3 ones sharing one HTTP client).
     */
    private ObjectStore bucketOrigin()
    {
        final List<String> s3Names = s3Buckets();
        final Map<String, Path> dirs = bucketDirectories();
        if (s3Names.size() + dirs.size() == 1)
        {
            return s3Names.isEmpty() ? new FileSystemOrigin(dirs.values().iterator().next(), fetchThreads) :
                S3Origin.create(s3EndpointUri(), s3Region, s3AccessKey, s3SecretKey, s3Names.get(0));
        }
        final Map<String, ObjectStore> origins = new LinkedHashMap<>();
        final SdkAsyncHttpClient shared = s3Names.isEmpty() ? null : S3Origin.newHttpClient();
        try
        {
            for (final String bucket : s3Names)
            {
                origins.put(bucket, S3Origin.create(s3EndpointUri(), s3Region, s3AccessKey, s3SecretKey, bucket,
                    shared));
            }
            for (final Map.Entry<String, Path> bucket : dirs.entrySet())
            {
                origins.put(bucket.getKey(), new FileSystemOrigin(bucket.getValue(), fetchThreads));
            }
            return new BucketOrigins(origins, shared);
        }
        catch (final RuntimeException ex)
        {
            for (final ObjectStore origin : origins.values())
            {
                origin.close();
            }
            if (null != shared)
            {
                shared.close();
            }
            throw ex;
        }
    }

    /** The S3 API's address and, with generated keys, a ready AWS CLI line for a sample object. */
    private void printS3Api(final PrintWriter out, final ServerProgram started, final S3Credentials s3Keys)
    {
        if (null == started.server().s3Address())
        {
            return;
        }
        final String endpoint = "http://" + s3ApiHost() + ":" + started.server().s3Address().getPort();
        final boolean generated = null != s3Keys && null == s3ApiKeys;
        final List<String> served = servedBucketNames();
        out.println("S3 API on " + endpoint + (served.size() == 1 ? ", bucket " + served.get(0) : ", buckets " +
            String.join(", ", served)) + " (" + (disableAuth ?
            "authentication DISABLED" : "AWS Signature V4" + (generated ? ", access key generated for this run" :
            "")) + ")");
        if (generated)
        {
            final String id = s3Keys.accessKeyIds().get(0);
            out.println("Try it with the AWS CLI:");
            out.println("  AWS_ACCESS_KEY_ID=" + id + " AWS_SECRET_ACCESS_KEY=" + s3Keys.secretOf(id) +
                " AWS_DEFAULT_REGION=" + s3ApiRegionName() + " aws --endpoint-url " + endpoint +
                " s3api get-object --bucket " + s3ApiBucketName() + " --key " + SampleObjects.HELLO +
                " --range bytes=0-99 /dev/stdout");
        }
    }

    private void validate()
    {
        final String configProblem = defaults.configProblem(spec.options());
        if (null != configProblem)
        {
            throw invalid(EnvironmentDefaults.CONFIG, configProblem);
        }
        if (null != config && !config.equals(defaults.configFile()))
        {
            throw invalid(EnvironmentDefaults.CONFIG, "is read before the command line is parsed: start through " +
                "OffcacheServerCommand.main or commandLine(env, configFile)");
        }
        listenHost();
        listenPort();
        // Each component checks its own settings (bounds live once, in its Context or builder), before anything
        // is made; an error names the setting, mapped back to the flag it came from.
        checkSettings(() -> ServerProgram.engineBuilder(this).validate(), ENGINE_FLAGS);
        checkSettings(() -> ServerProgram.storeContext(this).validate(), STORE_FLAGS);
        checkSettings(() -> ServerProgram.serverContext(this).validate(ServerProgram.kibibytes(blockSizeKb)),
            SERVER_FLAGS);
        positive("--fetch-threads", fetchThreads);
        validateS3();
        validateHttpOrigin();
        validateBucketDirs();
        validateS3Api();
        if (null != apiKeys && !apiKeys.isBlank())
        {
            try
            {
                ApiKeys.parse(apiKeys);
            }
            catch (final IllegalArgumentException ex)
            {
                throw invalid("--api-keys", ex.getMessage());
            }
        }
    }

    /**
     * Names every {@code OFFCACHE_*} variable no option reads (a typo, or an engine-process setting such as
     * {@code OFFCACHE_L1_MB} that a server has no use for), so a setting is never silently ignored.
     */
    private void warnAboutUnknownVariables()
    {
        final List<String> known = new ArrayList<>();
        for (final CommandLine.Model.OptionSpec option : spec.options())
        {
            known.add(EnvironmentDefaults.variableOf(option));
        }
        final List<String> unknown = new ArrayList<>();
        for (final String name : env.keySet())
        {
            if (name.startsWith("OFFCACHE_") && !known.contains(name) && !LAUNCHER_VARIABLES.contains(name))
            {
                unknown.add(name);
            }
        }
        if (!unknown.isEmpty())
        {
            unknown.sort(null);
            final PrintWriter err = spec.commandLine().getErr();
            err.println("offcache-server: ignoring " + String.join(", ", unknown) +
                ": no server option reads them (see --help)");
            err.flush();
        }
    }

    private void validateS3()
    {
        final boolean anyS3 = null != s3Endpoint || null != s3AccessKey || null != s3SecretKey;
        if (null == s3Bucket)
        {
            if (anyS3)
            {
                throw invalid("--s3-bucket", "is required with --s3-endpoint and the S3 keys");
            }
            return;
        }
        final List<String> seen = new ArrayList<>();
        for (final String bucket : s3Bucket.split(",", -1))
        {
            final String name = bucket.trim();
            if (!S3Buckets.isValidName(name))
            {
                throw invalid("--s3-bucket", "is not a valid bucket name: '" + name + "'");
            }
            if (seen.contains(name))
            {
                throw invalid("--s3-bucket", "names bucket '" + name + "' twice");
            }
            seen.add(name);
        }
        if (null != originDir)
        {
            throw invalid("--s3-bucket", "cannot be combined with --origin-dir: choose one origin");
        }
        if (null == s3Endpoint)
        {
            throw invalid("--s3-endpoint", "is required with --s3-bucket");
        }
        s3EndpointUri();
        if (null == s3Region || s3Region.isBlank())
        {
            throw invalid("--s3-region", "must not be empty");
        }
        // both keys, or neither (then the AWS SDK's default credential chain: environment, profile, role)
        if ((null == s3AccessKey) != (null == s3SecretKey))
        {
            throw invalid(null == s3AccessKey ? "--s3-access-key" : "--s3-secret-key",
                "is required with " + (null == s3AccessKey ? "--s3-secret-key" : "--s3-access-key") +
                " (or leave both out to use the default AWS credential chain)");
        }
        if (null != s3AccessKey && (s3AccessKey.isBlank() || s3SecretKey.isBlank()))
        {
            throw invalid(s3AccessKey.isBlank() ? "--s3-access-key" : "--s3-secret-key", "must not be empty");
        }
    }

    private void validateHttpOrigin()
    {
        if (null == httpOrigin)
        {
            return;
        }
        if (null != originDir || null != s3Bucket || null != bucketDirs)
        {
            throw invalid("--http-origin", "cannot be combined with --origin-dir, --s3-bucket or --bucket-dirs: " +
                "choose one origin");
        }
        httpOriginUri();
    }

    /** NAME=DIR pairs: valid distinct bucket names, none also in --s3-bucket, a directory each, no --origin-dir. */
    private void validateBucketDirs()
    {
        if (null == bucketDirs)
        {
            return;
        }
        if (null != originDir)
        {
            throw invalid("--bucket-dirs", "cannot be combined with --origin-dir (name that directory as a bucket " +
                "here instead)");
        }
        final List<String> s3Names = null == s3Bucket ? List.of() : s3Buckets();
        final List<String> seen = new ArrayList<>();
        for (final String entry : bucketDirs.split(",", -1))
        {
            final int equals = entry.indexOf('=');
            if (equals < 0 || entry.substring(equals + 1).isBlank())
            {
                throw invalid("--bucket-dirs", "must be NAME=DIR[,NAME=DIR...], was '" + entry.trim() + "'");
            }
            final String name = entry.substring(0, equals).trim();
            if (!S3Buckets.isValidName(name))
            {
                throw invalid("--bucket-dirs", "is not a valid bucket name: '" + name + "'");
            }
            if (seen.contains(name) || s3Names.contains(name))
            {
                throw invalid("--bucket-dirs", "bucket '" + name + "' is mapped twice" + (s3Names.contains(name) ?
                    " (also in --s3-bucket)" : ""));
            }
            seen.add(name);
        }
    }

    /** The buckets of --s3-bucket, in the order given. */
    private List<String> s3Buckets()
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
    private Map<String, Path> bucketDirectories()
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

    private URI httpOriginUri()
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

    private URI s3EndpointUri()
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

    /** The SSD tier's directory must exist (or be creatable) and take a new file: file modes alone do not tell. */
    private static void requireWritableDirectory(final Path dir)
    {
        try
        {
            Files.createDirectories(dir);
            Files.delete(Files.createTempFile(dir, ".offcache-write-check-", ".tmp"));
        }
        catch (final IOException | SecurityException ex)
        {
            throw new StartupException("--disk-path", dir + " is not a writable directory (" + describe(ex) +
                "): create it writable for this user or choose another --disk-path", ex);
        }
    }

    /**
     * A file-system failure in words, naming its file once at most (an exception's message is often the path).
     *
     * @param ex the failure.
     * @return the words.
     */
    static String describe(final Exception ex)
    {
        if (ex instanceof AccessDeniedException)
        {
            return "permission denied";
        }
        if (ex instanceof NoSuchFileException)
        {
            return "no such file";
        }
        if (ex instanceof FileAlreadyExistsException || ex instanceof NotDirectoryException)
        {
            return "a file is in the way: " + ex.getMessage();
        }
        if (ex instanceof FileSystemException fs && null != fs.getReason())
        {
            return fs.getReason().toLowerCase(Locale.ROOT) + ": " + fs.getFile();
        }
        return ex.toString();
    }

    private static byte[] randomBytes(final int count)
    {
        final byte[] bytes = new byte[count];
        new SecureRandom().nextBytes(bytes);
        return bytes;
    }

    /**
     * Runs a component's own check of the settings the flags gave it; its error names the setting, which is mapped
     * back to the flag it came from (a setting no flag sets is a bug here, and stays an exception).
     */
    private void checkSettings(final Runnable check, final Map<String, String> flagOfSetting)
    {
        try
        {
            check.run();
        }
        catch (final InvalidSettingException ex)
        {
            final String flag = flagOfSetting.get(ex.setting());
            if (null == flag)
            {
                throw ex;
            }
            throw invalid(flag, ex.getMessage());
        }
    }

    private void positive(final String flag, final long value)
    {
        if (value < 1)
        {
            throw invalid(flag, "must be >= 1, was " + value);
        }
    }

    private CommandLine.ParameterException invalid(final String flag, final String problem)
    {
        return new CommandLine.ParameterException(spec.commandLine(),
            "Invalid value for " + flag + " (env " + EnvironmentDefaults.variableOf(flag) + "): " + problem,
            spec.findOption(flag), null);
    }

    String listenHost()
    {
        return hostOf("--listen", listen);
    }

    int listenPort()
    {
        return portOf("--listen", listen);
    }

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

    private boolean isEmbedded()
    {
        return null == originDir && null == s3Bucket && null == httpOrigin && null == bucketDirs;
    }

    private void validateS3Api()
    {
        if (!s3ApiEnabled())
        {
            for (final String[] flag : new String[][] {{"--s3-api-keys", s3ApiKeys}, {"--s3-api-bucket", s3ApiBucket},
                {"--s3-api-domain", s3ApiDomain}, {"--s3-api-region", s3ApiRegion}})
            {
                if (null != flag[1])
                {
                    throw invalid(flag[0], "needs --s3-api-listen (the S3 API is off without it)");
                }
            }
            return;
        }
        final int port = s3ApiPort();
        if (port != 0 && port == listenPort() && s3ApiHost().equals(listenHost()))
        {
            throw invalid("--s3-api-listen", "must differ from --listen (" + listen + "): the S3 API has a " +
                "listener of its own");
        }
        if (null != s3ApiKeys)
        {
            try
            {
                S3Credentials.parse(s3ApiKeys);
            }
            catch (final IllegalArgumentException ex)
            {
                throw invalid("--s3-api-keys", ex.getMessage());
            }
        }
        else if (!disableAuth && !isEmbedded())
        {
            throw invalid("--s3-api-keys", "no S3 API keys: set OFFCACHE_S3_API_KEYS to ID:SECRET, or pass " +
                "--disable-auth");
        }
        if (null != s3ApiBucket && (null != bucketDirs || s3Buckets().size() > 1))
        {
            throw invalid("--s3-api-bucket", "names the one bucket of --origin-dir, --http-origin or a single " +
                "--s3-bucket; --bucket-dirs and several --s3-bucket buckets are served under their own names");
        }
        if (!S3Buckets.isValidName(s3ApiBucketName()))
        {
            throw invalid("--s3-api-bucket", "is not a valid bucket name: '" + s3ApiBucketName() + "'");
        }
        if (null != s3ApiDomain && !s3ApiDomain.matches("[A-Za-z0-9]([A-Za-z0-9.-]{0,251}[A-Za-z0-9])?"))
        {
            throw invalid("--s3-api-domain", "is not a domain name: '" + s3ApiDomain + "'");
        }
        if (!s3ApiRegionName().matches("[a-z0-9][a-z0-9-]{0,63}"))
        {
            throw invalid("--s3-api-region", "is not a region name: '" + s3ApiRegionName() + "'");
        }
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

    /**
     * The running program, once {@link #start()} returned.
     *
     * @return the program or null.
     */
    public ServerProgram program()
    {
        return program;
    }
}
