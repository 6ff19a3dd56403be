package dev.offcache.embed;

import java.io.Serializable;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.Function;

import dev.offcache.range.origin.ObjectKeys;

/**
 * Which shared L2 cache servers ({@code cache-server}) an adapter's cache reads its misses through, and which files
 * they serve. An L2 server serves the objects of its own origin (an S3 bucket or a directory) by their keys there,
 * while adapter cache keys name engine locations; {@code locations} joins the two: each is a <em>root</em>, the
 * location of the server's origin as the engine spells it ({@code s3a://lake/} for a server in front of bucket
 * {@code lake}, {@code file:///data/} for one with {@code --origin-dir /data}), and a file under a root is the
 * server's object at the file's path relative to that root. Files under no root never go to L2.
 *
 * <table>
 * <caption>keys</caption>
 * <tr><th>key</th><th>default</th><th>meaning</th></tr>
 * <tr><td>{@code offcache.l2.servers}</td><td>none (no L2)</td><td>comma-separated {@code http://host:port}; one
 * server, or several sharded by rendezvous hashing</td></tr>
 * <tr><td>{@code offcache.l2.api.key}</td><td>{@code OFFCACHE_L2_API_KEY} from the environment</td><td>the
 * servers' API key</td></tr>
 * <tr><td>{@code offcache.l2.locations}</td><td>required with servers</td><td>comma-separated roots</td></tr>
 * <tr><td>{@code offcache.l2.abandon.timeout.ms}</td><td>500</td><td>connect + response headers deadline</td></tr>
 * <tr><td>{@code offcache.l2.stall.timeout.ms}</td><td>3000</td><td>longest pause inside a body</td></tr>
 * </table>
 *
 * <p>A value (equals, hashCode) and serializable like {@link CacheSettings}, of which it is a part; its
 * {@link #toString()} never shows the key.
 *
 * @param servers          the servers, normalised ({@code http://host:port[/base]}); empty for no L2.
 * @param apiKey           the bearer key (empty without servers).
 * @param locations        the roots, each with a scheme and a path ending in {@code /}.
 * @param abandonTimeoutMs connect + headers deadline.
 * @param stallTimeoutMs   longest gap between body bytes.
 */
public record L2Settings(
    List<URI> servers, String apiKey, List<URI> locations, long abandonTimeoutMs, long stallTimeoutMs)
    implements Serializable
{
    /** Key of the servers. */
    public static final String SERVERS = "offcache.l2.servers";
    /** Key of the API key. */
    public static final String API_KEY = "offcache.l2.api.key";
    /** The environment variable read for the API key when {@link #API_KEY} is unset (kept out of engine UIs). */
    public static final String API_KEY_ENV = "OFFCACHE_L2_API_KEY";
    /** Key of the roots. */
    public static final String LOCATIONS = "offcache.l2.locations";
    /** Key of the abandon timeout. */
    public static final String ABANDON_TIMEOUT_MS = "offcache.l2.abandon.timeout.ms";
    /** Key of the stall timeout. */
    public static final String STALL_TIMEOUT_MS = "offcache.l2.stall.timeout.ms";

    /** No L2: every miss goes to the adapter's own source. */
    public static final L2Settings NONE = new L2Settings(List.of(), "", List.of(), 500, 3000);

    /**
     * Validates the settings.
     */
    public L2Settings
    {
        servers = List.copyOf(servers);
        // Longest root first, so a file under nested roots maps by the deepest one.
        final List<URI> roots = new ArrayList<>(locations);
        roots.sort(Comparator.comparingInt((URI root) -> root.getPath().length()).reversed());
        locations = List.copyOf(roots);
        if (!servers.isEmpty() && (apiKey == null || apiKey.isEmpty()))
        {
            throw new IllegalArgumentException("invalid " + SERVERS + ": an API key is needed (" + API_KEY +
                " or the environment variable " + API_KEY_ENV + ")");
        }
        if (!servers.isEmpty() && locations.isEmpty())
        {
            throw new IllegalArgumentException("invalid " + SERVERS + ": " + LOCATIONS + " must name the " +
                "location(s) the servers front, e.g. s3a://bucket/");
        }
        if (servers.isEmpty() && !locations.isEmpty())
        {
            throw new IllegalArgumentException("invalid " + LOCATIONS + ": set " + SERVERS + " as well");
        }
        if (abandonTimeoutMs < 1 || stallTimeoutMs < 1)
        {
            throw new IllegalArgumentException("invalid " + (abandonTimeoutMs < 1 ? ABANDON_TIMEOUT_MS :
                STALL_TIMEOUT_MS) + ": must be >= 1");
        }
        apiKey = apiKey == null ? "" : apiKey;
    }

    /**
     * Reads the settings from an engine's configuration, the API key from the environment when the configuration
     * has none.
     *
     * @param lookup returns a key's value, or null when unset.
     * @param env    returns an environment variable, or null.
     * @return the settings ({@link #NONE} without {@link #SERVERS}).
     */
    public static L2Settings from(final Function<String, String> lookup, final Function<String, String> env)
    {
        final String servers = trimmed(lookup.apply(SERVERS));
        final String locations = trimmed(lookup.apply(LOCATIONS));
        if (servers == null && locations == null)
        {
            return NONE;
        }
        String key = trimmed(lookup.apply(API_KEY));
        if (key == null)
        {
            key = trimmed(env.apply(API_KEY_ENV));
        }
        if (key != null)
        {
            for (int i = 0; i < key.length(); i++)
            {
                final char c = key.charAt(i);
                if (c < 0x21 || c > 0x7E)
                {
                    throw new IllegalArgumentException("invalid " + API_KEY + ": must be printable ASCII without " +
                        "spaces");
                }
            }
        }
        return new L2Settings(
            servers == null ? List.of() : parseServers(servers),
            key,
            locations == null ? List.of() : parseLocations(locations),
            millis(lookup, ABANDON_TIMEOUT_MS, NONE.abandonTimeoutMs),
            millis(lookup, STALL_TIMEOUT_MS, NONE.stallTimeoutMs));
    }

    /**
     * Returns whether any server is set.
     *
     * @return whether any server is set.
     */
    public boolean enabled()
    {
        return !servers.isEmpty();
    }

    /**
     * The L2 servers' key of a file: its path relative to the deepest root it lies under.
     *
     * @param location the file (scheme, authority, path), as adapter keys decode it ({@link CacheKeys#locationOf}).
     * @return the servers' object key, or null when the file is under no root (or its relative path is not a valid
     *     server key).
     */
    public String serverKey(final URI location)
    {
        final String scheme = location.getScheme();
        final String path = location.getPath();
        if (scheme == null || path == null)
        {
            return null;
        }
        for (final URI root : locations)
        {
            final String rootPath = root.getPath();
            if (root.getScheme().equalsIgnoreCase(scheme) && sameAuthority(root.getAuthority(),
                location.getAuthority()) && path.length() > rootPath.length() && path.startsWith(rootPath))
            {
                final String key = path.substring(rootPath.length());
                try
                {
                    ObjectKeys.validate(key);
                    return key;
                }
                catch (final IllegalArgumentException ex)
                {
                    return null;
                }
            }
        }
        return null;
    }

    private static boolean sameAuthority(final String root, final String location)
    {
        final boolean rootNone = root == null || root.isEmpty();
        final boolean locationNone = location == null || location.isEmpty();
        return rootNone ? locationNone : !locationNone && root.equalsIgnoreCase(location);
    }

    @Override
    public String toString()
    {
        return "L2Settings{servers=" + servers + ", locations=" + locations + ", apiKey=" +
            (apiKey.isEmpty() ? "none" : "***") + ", abandonTimeoutMs=" + abandonTimeoutMs + ", stallTimeoutMs=" +
            stallTimeoutMs + "}";
    }

    private static List<URI> parseServers(final String text)
    {
        final List<URI> servers = new ArrayList<>();
        final Set<String> ids = new HashSet<>();
        for (final String part : text.split(",", -1))
        {
            final String item = part.trim();
            final URI uri = uri(SERVERS, item);
            if (!"http".equalsIgnoreCase(uri.getScheme()) || uri.getHost() == null || uri.getRawQuery() != null ||
                uri.getRawFragment() != null || uri.getRawUserInfo() != null)
            {
                throw new IllegalArgumentException("invalid " + SERVERS + "='" + text + "': '" + item + "' must be " +
                    "http://host:port (no TLS, user, query or fragment)");
            }
            String path = uri.getRawPath() == null ? "" : uri.getRawPath();
            while (path.endsWith("/"))
            {
                path = path.substring(0, path.length() - 1);
            }
            final String id = "http://" + uri.getHost().toLowerCase(Locale.ROOT) + ":" +
                (uri.getPort() < 0 ? 80 : uri.getPort()) + path;
            if (!ids.add(id))
            {
                throw new IllegalArgumentException("invalid " + SERVERS + "='" + text + "': " + id +
                    " is listed twice");
            }
            servers.add(URI.create(id));
        }
        return servers;
    }

    private static List<URI> parseLocations(final String text)
    {
        final List<URI> roots = new ArrayList<>();
        for (final String part : text.split(",", -1))
        {
            final String item = part.trim();
            final URI uri = uri(LOCATIONS, item);
            if (uri.getScheme() == null || uri.getRawQuery() != null || uri.getRawFragment() != null ||
                uri.isOpaque())
            {
                throw new IllegalArgumentException("invalid " + LOCATIONS + "='" + text + "': '" + item + "' must " +
                    "be a location with a scheme and no query, e.g. s3a://bucket/ or file:///data/");
            }
            final String path = uri.getPath() == null || uri.getPath().isEmpty() ? "/" : uri.getPath();
            try
            {
                roots.add(new URI(uri.getScheme().toLowerCase(Locale.ROOT), uri.getAuthority(),
                    path.endsWith("/") ? path : path + "/", null, null));
            }
            catch (final URISyntaxException ex)
            {
                throw new IllegalArgumentException("invalid " + LOCATIONS + "='" + text + "': " + ex.getMessage(), ex);
            }
        }
        return roots;
    }

    private static URI uri(final String key, final String item)
    {
        if (item.isEmpty())
        {
            throw new IllegalArgumentException("invalid " + key + ": an empty entry");
        }
        try
        {
            return new URI(item);
        }
        catch (final URISyntaxException ex)
        {
            throw new IllegalArgumentException("invalid " + key + ": '" + item + "' is not a URI", ex);
        }
    }

    private static long millis(final Function<String, String> lookup, final String key, final long fallback)
    {
        final String value = trimmed(lookup.apply(key));
        if (value == null)
        {
            return fallback;
        }
        try
        {
            final long n = Long.parseLong(value);
            if (n < 1)
            {
                throw new IllegalArgumentException("invalid " + key + "='" + value + "': must be >= 1");
            }
            return n;
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException("invalid " + key + "='" + value + "': is not a number", ex);
        }
    }

    private static String trimmed(final String value)
    {
        return value == null || value.isBlank() ? null : value.trim();
    }
}
