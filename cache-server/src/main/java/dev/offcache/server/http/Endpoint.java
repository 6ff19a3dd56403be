package dev.offcache.server.http;

import java.util.ArrayList;
import java.util.List;

import dev.offcache.server.s3.S3Operation;

/**
 * The endpoint a response is counted and logged under ({@code endpoint} label of
 * {@code offcache_server_http_requests_total}, the access log's {@code api}): the {@code /obj} API's endpoints, then
 * the S3 listener's, one per {@link S3Operation} ({@code s3_<Operation>}). Each is one object made once, carrying its
 * row in the request table, so counting a response needs no lookup and a misspelt endpoint does not compile. Immutable.
 */
public final class Endpoint
{
    /** {@code GET}/{@code HEAD /obj/KEY}. */
    public static final Endpoint OBJ;
    /** {@code POST /ranges/KEY}. */
    public static final Endpoint RANGES;
    /** {@code POST /prefetch}. */
    public static final Endpoint PREFETCH;
    /** {@code GET /metrics}. */
    public static final Endpoint METRICS;
    /** {@code GET /health}. */
    public static final Endpoint HEALTH;
    /** {@code GET /ready}. */
    public static final Endpoint READY;
    /** A request refused for its API key. */
    public static final Endpoint AUTH;
    /** Anything else: an unknown path, a malformed request, a server shutting down. */
    public static final Endpoint OTHER;
    /** An S3 request refused for its signature. */
    public static final Endpoint S3_AUTH;
    /** An S3 request answered before its operation was known. */
    public static final Endpoint S3_OTHER;

    private static final List<Endpoint> ALL;
    private static final Endpoint[] S3 = new Endpoint[S3Operation.values().length];

    private final String label;
    private final int row;

    static
    {
        final List<Endpoint> all = new ArrayList<>();
        OBJ = add(all, "obj");
        RANGES = add(all, "ranges");
        PREFETCH = add(all, "prefetch");
        METRICS = add(all, "metrics");
        HEALTH = add(all, "health");
        READY = add(all, "ready");
        AUTH = add(all, "auth");
        OTHER = add(all, "other");
        S3_AUTH = add(all, "s3_auth");
        S3_OTHER = add(all, "s3_other");
        for (final S3Operation operation : S3Operation.values())
        {
            S3[operation.ordinal()] = add(all, "s3_" + operation.apiName());
        }
        ALL = List.copyOf(all);
    }

    private Endpoint(final String label, final int row)
    {
        this.label = label;
        this.row = row;
    }

    private static Endpoint add(final List<Endpoint> all, final String label)
    {
        final Endpoint endpoint = new Endpoint(label, all.size());
        all.add(endpoint);
        return endpoint;
    }

    /**
     * Every endpoint, in row order.
     *
     * @return an immutable list.
     */
    public static List<Endpoint> all()
    {
        return ALL;
    }

    /**
     * The endpoint of an S3 operation ({@code s3_GetObject}).
     *
     * @param operation the operation.
     * @return its endpoint.
     */
    public static Endpoint s3(final S3Operation operation)
    {
        return S3[operation.ordinal()];
    }

    /**
     * The endpoint of a label, for readers of the counts (tests, tools); not for the hot path.
     *
     * @param label an endpoint's label.
     * @return its endpoint.
     * @throws IllegalArgumentException if no endpoint has that label.
     */
    public static Endpoint named(final String label)
    {
        for (int i = 0; i < ALL.size(); i++)
        {
            if (ALL.get(i).label.equals(label))
            {
                return ALL.get(i);
            }
        }
        throw new IllegalArgumentException("no endpoint '" + label + "': one of " + ALL);
    }

    /**
     * The label.
     *
     * @return {@code obj}, {@code s3_GetObject}...
     */
    public String label()
    {
        return label;
    }

    int row()
    {
        return row;
    }

    @Override
    public String toString()
    {
        return label;
    }
}
