package dev.offcache.range.l2;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.function.LongSupplier;

import dev.offcache.core.config.ConcludeOnce;
import dev.offcache.range.config.EnvironmentReader;
import dev.offcache.range.origin.ObjectStore;

/**
 * Everything an {@link L2Client} is configured with: the L2 server, its API key, the real origin behind it,
 * timeouts and breaker settings, with defaults and {@code OFFCACHE_L2_*} environment overrides. {@link #conclude()}
 * checks it; every refusal names the setting (or the environment variable) and the bad value.
 */
public final class L2ClientContext
{
    /** Environment variable of {@link #serverUri(URI)}. */
    public static final String ENV_URL = "OFFCACHE_L2_URL";
    /** Environment variable of {@link #apiKey(String)}. */
    public static final String ENV_API_KEY = "OFFCACHE_L2_API_KEY";
    /** Environment variable of {@link #abandonTimeout(Duration)}, in milliseconds. */
    public static final String ENV_ABANDON_TIMEOUT_MS = "OFFCACHE_L2_ABANDON_TIMEOUT_MS";
    /** Environment variable of {@link #stallTimeout(Duration)}, in milliseconds. */
    public static final String ENV_STALL_TIMEOUT_MS = "OFFCACHE_L2_STALL_TIMEOUT_MS";
    /** Environment variable of {@link #minReadBytesPerSecond(long)}, in KiB per second. */
    public static final String ENV_MIN_READ_KIB_PER_S = "OFFCACHE_L2_MIN_READ_KIB_PER_S";
    /** Environment variable of {@link #breakerThreshold(int)}. */
    public static final String ENV_BREAKER_THRESHOLD = "OFFCACHE_L2_BREAKER_THRESHOLD";
    /** Environment variable of {@link #breakerOpenTime(Duration)}, in milliseconds. */
    public static final String ENV_BREAKER_OPEN_MS = "OFFCACHE_L2_BREAKER_OPEN_MS";
    /** Environment variable of {@link #warmQueueCapacity(int)}. */
    public static final String ENV_WARM_QUEUE = "OFFCACHE_L2_WARM_QUEUE";
    /** Environment variable of {@link #countersFile(Path)}. */
    public static final String ENV_COUNTERS_FILE = "OFFCACHE_L2_COUNTERS_FILE";
    /** Environment variable of {@link #ioThreads(int)}. */
    public static final String ENV_IO_THREADS = "OFFCACHE_L2_IO_THREADS";

    /** Default {@link #abandonTimeout(Duration)}. */
    public static final Duration DEFAULT_ABANDON_TIMEOUT = Duration.ofMillis(500);
    /** Default {@link #stallTimeout(Duration)}. */
    public static final Duration DEFAULT_STALL_TIMEOUT = Duration.ofSeconds(3);
    /** Default {@link #minReadBytesPerSecond(long)}: 1 MiB/s, so an 8 MiB read is given up on after 11.5 s. */
    public static final long DEFAULT_MIN_READ_BYTES_PER_SECOND = 1024 * 1024;
    /** Default {@link #breakerThreshold(int)}. */
    public static final int DEFAULT_BREAKER_THRESHOLD = 5;
    /** Default {@link #breakerOpenTime(Duration)}. */
    public static final Duration DEFAULT_BREAKER_OPEN = Duration.ofSeconds(3);
    /** Default {@link #warmQueueCapacity(int)}. */
    public static final int DEFAULT_WARM_QUEUE = 1024;

    private URI serverUri;
    private String apiKey;
    private ObjectStore origin;
    private Duration abandonTimeout = DEFAULT_ABANDON_TIMEOUT;
    private Duration stallTimeout = DEFAULT_STALL_TIMEOUT;
    private long minReadBytesPerSecond = DEFAULT_MIN_READ_BYTES_PER_SECOND;
    private int breakerThreshold = DEFAULT_BREAKER_THRESHOLD;
    private Duration breakerOpenTime = DEFAULT_BREAKER_OPEN;
    private int warmQueueCapacity = DEFAULT_WARM_QUEUE;
    private int warmBatchKeys = 256;
    private int ioThreads = 1;
    private int maxIdleConnections = 64;
    private LongSupplier nanoClock = System::nanoTime;
    private Path countersFile;
    private final ConcludeOnce concluded = new ConcludeOnce();

    /**
     * Applies the {@code OFFCACHE_L2_*} variables found in an environment (others are ignored).
     *
     * @param env the environment, usually {@code System.getenv()}.
     * @return this.
     * @throws IllegalArgumentException naming the variable when a value is invalid.
     */
    public L2ClientContext fromEnvironment(final Map<String, String> env)
    {
        final String url = env.get(ENV_URL);
        if (url != null)
        {
            serverUri = parseUri(ENV_URL, url);
        }
        final String key = env.get(ENV_API_KEY);
        if (key != null)
        {
            if (key.isBlank())
            {
                throw invalid(ENV_API_KEY, "(blank)", "must not be blank");
            }
            apiKey = key.trim();
        }
        final EnvironmentReader reader = new EnvironmentReader(env);
        reader.positiveInt(ENV_ABANDON_TIMEOUT_MS).ifPresent((ms) -> abandonTimeout = Duration.ofMillis(ms));
        reader.positiveInt(ENV_STALL_TIMEOUT_MS).ifPresent((ms) -> stallTimeout = Duration.ofMillis(ms));
        reader.positiveInt(ENV_MIN_READ_KIB_PER_S).ifPresent((kib) -> minReadBytesPerSecond = kib * 1024L);
        reader.positiveInt(ENV_BREAKER_THRESHOLD).ifPresent((n) -> breakerThreshold = n);
        reader.positiveInt(ENV_BREAKER_OPEN_MS).ifPresent((ms) -> breakerOpenTime = Duration.ofMillis(ms));
        reader.positiveInt(ENV_WARM_QUEUE).ifPresent((n) -> warmQueueCapacity = n);
        reader.positiveInt(ENV_IO_THREADS).ifPresent((n) -> ioThreads = n);
        reader.string(ENV_COUNTERS_FILE).ifPresent((file) -> countersFile = Path.of(file));
        return this;
    }

    /**
     * Maps the client's counters to a file another process can read while it runs ({@code CountersFile} layout);
     * replaced if present, left on disk at close.
     *
     * @param file the file, or {@code null} to keep the counters in memory (the default).
     * @return this.
     */
    public L2ClientContext countersFile(final Path file)
    {
        this.countersFile = file;
        return this;
    }

    /**
     * The counters file.
     *
     * @return the file, or {@code null}.
     */
    public Path countersFile()
    {
        return countersFile;
    }

    /**
     * Checks the settings; called once, by {@link L2Client}'s constructor (a second call throws
     * {@code ConcurrentConcludeException}).
     *
     * @return this.
     * @throws IllegalArgumentException naming what is missing or wrong.
     */
    public L2ClientContext conclude()
    {
        concluded.conclude(this);
        if (serverUri == null)
        {
            throw new IllegalArgumentException("the L2 server URL is not set (serverUri or " + ENV_URL + ")");
        }
        parseUri("serverUri", serverUri.toString());
        if (apiKey == null || apiKey.isBlank())
        {
            throw new IllegalArgumentException("the L2 API key is not set (apiKey or " + ENV_API_KEY + ")");
        }
        if (apiKey.chars().anyMatch((c) -> c < 0x21 || c > 0x7e))
        {
            throw new IllegalArgumentException("apiKey must be printable ASCII without spaces (" + ENV_API_KEY + ")");
        }
        Objects.requireNonNull(origin, "origin (the real origin behind L2) is not set");
        requirePositive(abandonTimeout, "abandonTimeout (" + ENV_ABANDON_TIMEOUT_MS + ")");
        requirePositive(stallTimeout, "stallTimeout (" + ENV_STALL_TIMEOUT_MS + ")");
        requirePositive(breakerOpenTime, "breakerOpenTime (" + ENV_BREAKER_OPEN_MS + ")");
        if (abandonTimeout.toMillis() > Integer.MAX_VALUE)
        {
            throw new IllegalArgumentException("abandonTimeout is too long: " + abandonTimeout);
        }
        if (minReadBytesPerSecond < 1)
        {
            throw new IllegalArgumentException("minReadBytesPerSecond (" + ENV_MIN_READ_KIB_PER_S + ") must be >= 1: " +
                minReadBytesPerSecond);
        }
        requireAtLeastOne(breakerThreshold, "breakerThreshold (" + ENV_BREAKER_THRESHOLD + ")");
        requireAtLeastOne(warmQueueCapacity, "warmQueueCapacity (" + ENV_WARM_QUEUE + ")");
        requireAtLeastOne(warmBatchKeys, "warmBatchKeys");
        requireAtLeastOne(ioThreads, "ioThreads (" + ENV_IO_THREADS + ")");
        if (maxIdleConnections < 0)
        {
            throw new IllegalArgumentException("maxIdleConnections must be >= 0: " + maxIdleConnections);
        }
        Objects.requireNonNull(nanoClock, "nanoClock");
        return this;
    }

    /**
     * Sets the L2 server, {@code http://host:port} with an optional base path.
     *
     * @param serverUri the server.
     * @return this.
     */
    public L2ClientContext serverUri(final URI serverUri)
    {
        this.serverUri = Objects.requireNonNull(serverUri, "serverUri");
        return this;
    }

    /**
     * The L2 server.
     *
     * @return the URI.
     */
    public URI serverUri()
    {
        return serverUri;
    }

    /**
     * Sets the API key sent as {@code Authorization: Bearer <key>}.
     *
     * @param apiKey the key.
     * @return this.
     */
    public L2ClientContext apiKey(final String apiKey)
    {
        this.apiKey = Objects.requireNonNull(apiKey, "apiKey");
        return this;
    }

    /**
     * The API key.
     *
     * @return the key.
     */
    public String apiKey()
    {
        return apiKey;
    }

    /**
     * Sets the real origin that answers whenever L2 does not; the client owns and closes it.
     *
     * @param origin the real origin.
     * @return this.
     */
    public L2ClientContext origin(final ObjectStore origin)
    {
        this.origin = Objects.requireNonNull(origin, "origin");
        return this;
    }

    /**
     * The real origin.
     *
     * @return the origin.
     */
    public ObjectStore origin()
    {
        return origin;
    }

    /**
     * Sets how long to wait for response headers (connect included) before reading from the origin instead.
     *
     * @param abandonTimeout the deadline.
     * @return this.
     */
    public L2ClientContext abandonTimeout(final Duration abandonTimeout)
    {
        this.abandonTimeout = Objects.requireNonNull(abandonTimeout, "abandonTimeout");
        return this;
    }

    /**
     * The header deadline.
     *
     * @return the deadline.
     */
    public Duration abandonTimeout()
    {
        return abandonTimeout;
    }

    /**
     * Sets how long a body may go without bytes before the rest is read from the origin.
     *
     * @param stallTimeout the stall limit.
     * @return this.
     */
    public L2ClientContext stallTimeout(final Duration stallTimeout)
    {
        this.stallTimeout = Objects.requireNonNull(stallTimeout, "stallTimeout");
        return this;
    }

    /**
     * The stall limit.
     *
     * @return the limit.
     */
    public Duration stallTimeout()
    {
        return stallTimeout;
    }

    /**
     * Sets the slowest rate at which a read from L2 is worth waiting for: a read of {@code n} bytes is given up on
     * (and completed from the origin, the breaker told) once {@code abandonTimeout + stallTimeout + n / rate} have
     * passed since it started, however steadily bytes arrive.
     *
     * @param minReadBytesPerSecond bytes per second (at least 1).
     * @return this.
     */
    public L2ClientContext minReadBytesPerSecond(final long minReadBytesPerSecond)
    {
        this.minReadBytesPerSecond = minReadBytesPerSecond;
        return this;
    }

    /**
     * The minimum read rate.
     *
     * @return bytes per second.
     */
    public long minReadBytesPerSecond()
    {
        return minReadBytesPerSecond;
    }

    /**
     * Sets how many consecutive unresponsive calls open the breaker.
     *
     * @param breakerThreshold the count.
     * @return this.
     */
    public L2ClientContext breakerThreshold(final int breakerThreshold)
    {
        this.breakerThreshold = breakerThreshold;
        return this;
    }

    /**
     * The breaker threshold.
     *
     * @return the count.
     */
    public int breakerThreshold()
    {
        return breakerThreshold;
    }

    /**
     * Sets how long the breaker stays open before it lets a probe through.
     *
     * @param breakerOpenTime the open period.
     * @return this.
     */
    public L2ClientContext breakerOpenTime(final Duration breakerOpenTime)
    {
        this.breakerOpenTime = Objects.requireNonNull(breakerOpenTime, "breakerOpenTime");
        return this;
    }

    /**
     * The open period.
     *
     * @return the period.
     */
    public Duration breakerOpenTime()
    {
        return breakerOpenTime;
    }

    /**
     * Sets how many {@code notifyWritten} keys may wait to be sent; more are dropped and counted.
     *
     * @param warmQueueCapacity the capacity.
     * @return this.
     */
    public L2ClientContext warmQueueCapacity(final int warmQueueCapacity)
    {
        this.warmQueueCapacity = warmQueueCapacity;
        return this;
    }

    /**
     * The warming queue capacity.
     *
     * @return the capacity.
     */
    public int warmQueueCapacity()
    {
        return warmQueueCapacity;
    }

    /**
     * Sets the most keys sent in one POST /prefetch.
     *
     * @param warmBatchKeys the batch size.
     * @return this.
     */
    public L2ClientContext warmBatchKeys(final int warmBatchKeys)
    {
        this.warmBatchKeys = warmBatchKeys;
        return this;
    }

    /**
     * The warming batch size.
     *
     * @return keys per POST.
     */
    public int warmBatchKeys()
    {
        return warmBatchKeys;
    }

    /**
     * Sets the number of Netty event-loop threads.
     *
     * @param ioThreads the thread count.
     * @return this.
     */
    public L2ClientContext ioThreads(final int ioThreads)
    {
        this.ioThreads = ioThreads;
        return this;
    }

    /**
     * The event-loop thread count.
     *
     * @return the count.
     */
    public int ioThreads()
    {
        return ioThreads;
    }

    /**
     * Sets how many idle keep-alive connections are kept for reuse.
     *
     * @param maxIdleConnections the pool size (0 closes each connection after use).
     * @return this.
     */
    public L2ClientContext maxIdleConnections(final int maxIdleConnections)
    {
        this.maxIdleConnections = maxIdleConnections;
        return this;
    }

    /**
     * The idle connection pool size.
     *
     * @return the size.
     */
    public int maxIdleConnections()
    {
        return maxIdleConnections;
    }

    /**
     * Sets the breaker's time source (tests inject a manual clock).
     *
     * @param nanoClock nanoseconds, monotonic.
     * @return this.
     */
    public L2ClientContext nanoClock(final LongSupplier nanoClock)
    {
        this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
        return this;
    }

    /**
     * The breaker's time source.
     *
     * @return the clock.
     */
    public LongSupplier nanoClock()
    {
        return nanoClock;
    }

    private static URI parseUri(final String name, final String text)
    {
        final URI uri;
        try
        {
            uri = new URI(text.trim());
        }
        catch (final Exception ex)
        {
            throw invalid(name, text, "is not a URI");
        }
        if (!"http".equalsIgnoreCase(uri.getScheme()))
        {
            throw invalid(name, text, "must be an http:// URL (TLS is not supported by the L2 client)");
        }
        if (uri.getHost() == null || uri.getHost().isEmpty())
        {
            throw invalid(name, text, "has no host");
        }
        if (uri.getQuery() != null || uri.getFragment() != null || uri.getUserInfo() != null)
        {
            throw invalid(name, text, "must not carry a query, fragment or user info");
        }
        return uri;
    }

    private static void requirePositive(final Duration value, final String name)
    {
        if (value.isNegative() || value.isZero())
        {
            throw new IllegalArgumentException(name + " must be positive: " + value);
        }
    }

    private static void requireAtLeastOne(final int value, final String name)
    {
        if (value < 1)
        {
            throw new IllegalArgumentException(name + " must be >= 1: " + value);
        }
    }

    private static IllegalArgumentException invalid(final String name, final String value, final String why)
    {
        return new IllegalArgumentException("invalid " + name + "='" + value + "': " + why);
    }
}
