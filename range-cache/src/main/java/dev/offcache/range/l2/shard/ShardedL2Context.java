package dev.offcache.range.l2.shard;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;

import dev.offcache.core.config.ConcludeOnce;
import dev.offcache.range.config.EnvironmentReader;
import dev.offcache.range.l2.L2ClientContext;
import dev.offcache.range.origin.ObjectStore;

/**
 * Everything a {@link ShardedL2Client} is configured with: the L2 servers, the real origin, the health-check
 * settings, and a template {@link L2ClientContext} whose API key, timeouts, breaker and warming settings every
 * per-server client copies. {@code OFFCACHE_L2_SERVERS} (comma-separated URLs) and {@code OFFCACHE_L2_HEALTH_*}
 * override code, and every {@code OFFCACHE_L2_*} variable of the single-server client applies to the template.
 * {@link #conclude()} checks it; every refusal names the setting or the variable and the bad value.
 */
public final class ShardedL2Context
{
    /** Environment variable of {@link #servers(List)}: comma-separated {@code http://host:port} URLs. */
    public static final String ENV_SERVERS = "OFFCACHE_L2_SERVERS";
    /** Environment variable of {@link #healthInterval(Duration)}, in milliseconds. */
    public static final String ENV_HEALTH_INTERVAL_MS = "OFFCACHE_L2_HEALTH_INTERVAL_MS";
    /** Environment variable of {@link #healthTimeout(Duration)}, in milliseconds. */
    public static final String ENV_HEALTH_TIMEOUT_MS = "OFFCACHE_L2_HEALTH_TIMEOUT_MS";
    /** Environment variable of {@link #unhealthyAfter(int)}. */
    public static final String ENV_UNHEALTHY_AFTER = "OFFCACHE_L2_UNHEALTHY_AFTER";

    /** Default {@link #healthInterval(Duration)}. */
    public static final Duration DEFAULT_HEALTH_INTERVAL = Duration.ofSeconds(1);
    /** Default {@link #healthTimeout(Duration)}. */
    public static final Duration DEFAULT_HEALTH_TIMEOUT = Duration.ofMillis(500);
    /** Default {@link #unhealthyAfter(int)}. */
    public static final int DEFAULT_UNHEALTHY_AFTER = 3;

    private final L2ClientContext client = new L2ClientContext();
    private final List<URI> servers = new ArrayList<>();
    private ObjectStore origin;
    private Duration healthInterval = DEFAULT_HEALTH_INTERVAL;
    private Duration healthTimeout = DEFAULT_HEALTH_TIMEOUT;
    private int unhealthyAfter = DEFAULT_UNHEALTHY_AFTER;
    private final ConcludeOnce concluded = new ConcludeOnce();

    /**
     * Applies {@code OFFCACHE_L2_SERVERS}, {@code OFFCACHE_L2_HEALTH_*}, {@code OFFCACHE_L2_UNHEALTHY_AFTER} and the
     * single-server client's {@code OFFCACHE_L2_*} variables (to the template) found in an environment.
     *
     * @param env the environment, usually {@code System.getenv()}.
     * @return this.
     * @throws IllegalArgumentException naming the variable when a value is invalid.
     */
    public ShardedL2Context fromEnvironment(final Map<String, String> env)
    {
        client.fromEnvironment(env);
        final EnvironmentReader reader = new EnvironmentReader(env);
        reader.list(ENV_SERVERS).ifPresent((list) ->
        {
            final List<URI> parsed = new ArrayList<>();
            for (final String item : list)
            {
                parsed.add(parseServer(ENV_SERVERS, env.get(ENV_SERVERS), item));
            }
            requireDistinct(ENV_SERVERS, parsed);
            servers.clear();
            servers.addAll(parsed);
        });
        reader.positiveInt(ENV_HEALTH_INTERVAL_MS).ifPresent((ms) -> healthInterval = Duration.ofMillis(ms));
        reader.positiveInt(ENV_HEALTH_TIMEOUT_MS).ifPresent((ms) -> healthTimeout = Duration.ofMillis(ms));
        reader.positiveInt(ENV_UNHEALTHY_AFTER).ifPresent((n) -> unhealthyAfter = n);
        return this;
    }

    /**
     * Checks the settings; called once, by {@link ShardedL2Client}'s constructor (a second call throws
     * {@code ConcurrentConcludeException}). With no servers listed but {@code OFFCACHE_L2_URL} (the template's
     * server) set, that one server is used.
     *
     * @return this.
     * @throws IllegalArgumentException naming what is missing or wrong.
     */
    public ShardedL2Context conclude()
    {
        concluded.conclude(this);
        if (servers.isEmpty() && client.serverUri() != null)
        {
            servers.add(client.serverUri());
        }
        if (servers.isEmpty())
        {
            throw new IllegalArgumentException(
                "no L2 servers are set (servers or " + ENV_SERVERS + ", or " + L2ClientContext.ENV_URL + ")");
        }
        for (final URI server : servers)
        {
            parseServer("servers", servers.toString(), server.toString());
        }
        requireDistinct("servers", servers);
        if (client.apiKey() == null || client.apiKey().isBlank())
        {
            throw new IllegalArgumentException(
                "the L2 API key is not set (client().apiKey or " + L2ClientContext.ENV_API_KEY + ")");
        }
        Objects.requireNonNull(origin, "origin (the real origin behind L2) is not set");
        requirePositive(healthInterval, "healthInterval (" + ENV_HEALTH_INTERVAL_MS + ")");
        requirePositive(healthTimeout, "healthTimeout (" + ENV_HEALTH_TIMEOUT_MS + ")");
        if (unhealthyAfter < 1)
        {
            throw new IllegalArgumentException(
                "unhealthyAfter (" + ENV_UNHEALTHY_AFTER + ") must be >= 1: " + unhealthyAfter);
        }
        return this;
    }

    /**
     * The template every per-server client copies (API key, timeouts, breaker, warming, threads, clock); its
     * server URL and origin are ignored.
     *
     * @return the template, to set on.
     */
    public L2ClientContext client()
    {
        return client;
    }

    /**
     * Sets on the template every per-server client copies, in a chain: {@code .client((c) -> c.stallTimeout(d))}.
     *
     * @param settings applied to {@link #client()} at once.
     * @return this.
     */
    public ShardedL2Context client(final Consumer<L2ClientContext> settings)
    {
        settings.accept(client);
        return this;
    }

    /**
     * Sets the L2 servers (replacing any set before).
     *
     * @param servers {@code http://host:port[/base]} URLs, distinct.
     * @return this.
     */
    public ShardedL2Context servers(final List<URI> servers)
    {
        Objects.requireNonNull(servers, "servers");
        this.servers.clear();
        this.servers.addAll(servers);
        return this;
    }

    /**
     * Adds one L2 server.
     *
     * @param server {@code http://host:port[/base]}.
     * @return this.
     */
    public ShardedL2Context server(final URI server)
    {
        servers.add(Objects.requireNonNull(server, "server"));
        return this;
    }

    /**
     * The L2 servers.
     *
     * @return a copy of the list.
     */
    public List<URI> servers()
    {
        return List.copyOf(servers);
    }

    /**
     * Sets the API key sent to every server (on the template).
     *
     * @param apiKey the key.
     * @return this.
     */
    public ShardedL2Context apiKey(final String apiKey)
    {
        client.apiKey(apiKey);
        return this;
    }

    /**
     * Sets the real origin that answers whenever no server does; the router owns and closes it.
     *
     * @param origin the real origin.
     * @return this.
     */
    public ShardedL2Context origin(final ObjectStore origin)
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
     * Sets the pause between two {@code GET /health} rounds.
     *
     * @param healthInterval the interval.
     * @return this.
     */
    public ShardedL2Context healthInterval(final Duration healthInterval)
    {
        this.healthInterval = Objects.requireNonNull(healthInterval, "healthInterval");
        return this;
    }

    /**
     * The health-check interval.
     *
     * @return the interval.
     */
    public Duration healthInterval()
    {
        return healthInterval;
    }

    /**
     * Sets how long one health check may take (connect and answer) before it counts as failed.
     *
     * @param healthTimeout the deadline.
     * @return this.
     */
    public ShardedL2Context healthTimeout(final Duration healthTimeout)
    {
        this.healthTimeout = Objects.requireNonNull(healthTimeout, "healthTimeout");
        return this;
    }

    /**
     * The health-check deadline.
     *
     * @return the deadline.
     */
    public Duration healthTimeout()
    {
        return healthTimeout;
    }

    /**
     * Sets how many consecutive failed health checks make a server unhealthy (one success makes it healthy).
     *
     * @param unhealthyAfter the count.
     * @return this.
     */
    public ShardedL2Context unhealthyAfter(final int unhealthyAfter)
    {
        this.unhealthyAfter = unhealthyAfter;
        return this;
    }

    /**
     * Consecutive failures that make a server unhealthy.
     *
     * @return the count.
     */
    public int unhealthyAfter()
    {
        return unhealthyAfter;
    }

    /**
     * The identity of a server in the hash: {@code http://host:port[/base]} with the host lower-cased, the port
     * explicit and no trailing slash, so two spellings of one server hash the same.
     *
     * @param server the server URL.
     * @return its id.
     */
    public static String serverId(final URI server)
    {
        final int port = server.getPort() < 0 ? 80 : server.getPort();
        String path = server.getRawPath() == null ? "" : server.getRawPath();
        while (path.endsWith("/"))
        {
            path = path.substring(0, path.length() - 1);
        }
        return "http://" + server.getHost().toLowerCase(Locale.ROOT) + ":" + port + path;
    }

    static URI parseServer(final String name, final String whole, final String text)
    {
        final URI uri;
        try
        {
            uri = new URI(text.trim());
        }
        catch (final Exception ex)
        {
            throw invalid(name, whole, "'" + text + "' is not a URI");
        }
        if (!"http".equalsIgnoreCase(uri.getScheme()))
        {
            throw invalid(name, whole, "'" + text + "' must be an http:// URL (TLS is not supported by the L2 client)");
        }
        if (uri.getHost() == null || uri.getHost().isEmpty())
        {
            throw invalid(name, whole, "'" + text + "' has no host");
        }
        if (uri.getQuery() != null || uri.getFragment() != null || uri.getUserInfo() != null)
        {
            throw invalid(name, whole, "'" + text + "' must not carry a query, fragment or user info");
        }
        return uri;
    }

    private static void requireDistinct(final String name, final List<URI> servers)
    {
        final Set<String> ids = new HashSet<>();
        for (final URI server : servers)
        {
            if (!ids.add(serverId(server)))
            {
                throw invalid(name, servers.toString(), "lists " + serverId(server) + " twice");
            }
        }
    }

    private static void requirePositive(final Duration value, final String name)
    {
        if (value.isNegative() || value.isZero())
        {
            throw new IllegalArgumentException(name + " must be positive: " + value);
        }
    }

    private static IllegalArgumentException invalid(final String name, final String value, final String why)
    {
        return new IllegalArgumentException("invalid " + name + "='" + value + "': " + why);
    }
}
