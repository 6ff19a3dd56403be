package dev.offcache.server.s3;

import java.time.Clock;
import java.util.Objects;

import dev.offcache.core.config.ConcludeOnce;
import dev.offcache.server.http.ObjectKeyPolicy;

/**
 * The S3 API of the L2 server, as configured: where it listens, who may sign (or that authentication is off), how
 * requests are parsed (virtual-host domain) and answered ({@link S3Service}: buckets, key policy, writes). The HTTP
 * layer serves it on a listener of its own over the same event loops, engine and memory budget as {@code /obj}.
 * Immutable once concluded; shared by every connection.
 */
public final class S3Api
{
    private final Context ctx;
    private final S3Service service;
    private final S3RequestParser parser;

    /**
     * Makes the API from a context (concluded here).
     *
     * @param ctx the configuration.
     */
    public S3Api(final Context ctx)
    {
        this.ctx = ctx.conclude();
        this.service = new S3Service(ctx.buckets, ctx.keys, ctx.writes, ctx.clock);
        this.parser = new S3RequestParser(ctx.domain);
    }

    /** Configuration of the S3 API; {@link #conclude()} checks it. */
    public static final class Context
    {
        private final ConcludeOnce concluded = new ConcludeOnce();
        private String host = "127.0.0.1";
        private int port;
        private S3Credentials credentials;
        private boolean authDisabled;
        private S3Buckets buckets;
        private ObjectKeyPolicy keys;
        private S3WriteMode writes = S3WriteMode.REFUSE;
        private String domain;
        private Clock clock = Clock.systemUTC();

        /**
         * Where to listen.
         *
         * @param host the address to bind.
         * @param port the port, 0 for any free one.
         * @return this.
         */
        public Context listen(final String host, final int port)
        {
            this.host = host;
            this.port = port;
            return this;
        }

        /**
         * The access-key pairs requests may be signed with.
         *
         * @param credentials the pairs.
         * @return this.
         */
        public Context credentials(final S3Credentials credentials)
        {
            this.credentials = credentials;
            return this;
        }

        /**
         * Accepts unsigned and any-signed requests (only when explicitly asked).
         *
         * @param disabled whether authentication is off.
         * @return this.
         */
        public Context authDisabled(final boolean disabled)
        {
            this.authDisabled = disabled;
            return this;
        }

        /**
         * The served buckets.
         *
         * @param buckets the buckets.
         * @return this.
         */
        public Context buckets(final S3Buckets buckets)
        {
            this.buckets = buckets;
            return this;
        }

        /**
         * The key policy (the one {@code /obj} uses).
         *
         * @param keys the policy.
         * @return this.
         */
        public Context keyPolicy(final ObjectKeyPolicy keys)
        {
            this.keys = keys;
            return this;
        }

        /**
         * What happens to writes.
         *
         * @param writes the mode.
         * @return this.
         */
        public Context writes(final S3WriteMode writes)
        {
            this.writes = writes;
            return this;
        }

        /**
         * The virtual-host base domain, or {@code null} for path-style only.
         *
         * @param domain the domain.
         * @return this.
         */
        public Context domain(final String domain)
        {
            this.domain = domain;
            return this;
        }

        /**
         * The clock signatures and conditions are checked against.
         *
         * @param clock the clock.
         * @return this.
         */
        public Context clock(final Clock clock)
        {
            this.clock = clock;
            return this;
        }

        /**
         * Checks the configuration. Called by {@link S3Api#S3Api(Context)}.
         *
         * @return this.
         */
        public Context conclude()
        {
            concluded.conclude(this);
            Objects.requireNonNull(buckets, "buckets");
            Objects.requireNonNull(keys, "keyPolicy");
            Objects.requireNonNull(host, "host");
            Objects.requireNonNull(clock, "clock");
            Objects.requireNonNull(writes, "writes");
            if (port < 0 || port > 65535)
            {
                throw new IllegalArgumentException("S3 API port out of range: " + port);
            }
            if (null == credentials && !authDisabled)
            {
                throw new IllegalArgumentException("no S3 API keys: set OFFCACHE_S3_API_KEYS or pass --disable-auth");
            }
            return this;
        }
    }

    /**
     * The address to bind.
     *
     * @return the host.
     */
    public String host()
    {
        return ctx.host;
    }

    /**
     * The port to bind.
     *
     * @return the port, 0 for any.
     */
    public int port()
    {
        return ctx.port;
    }

    /**
     * Whether authentication is off.
     *
     * @return true when it is.
     */
    public boolean authDisabled()
    {
        return ctx.authDisabled;
    }

    /**
     * A verifier for one connection.
     *
     * @return the verifier, or {@code null} when authentication is off.
     */
    public SigV4Verifier newVerifier()
    {
        return ctx.authDisabled ? null : new SigV4Verifier(ctx.credentials, ctx.clock);
    }

    /**
     * The request parser.
     *
     * @return the parser.
     */
    public S3RequestParser parser()
    {
        return parser;
    }

    /**
     * The answering service.
     *
     * @return the service.
     */
    public S3Service service()
    {
        return service;
    }

    /**
     * The served buckets.
     *
     * @return the buckets.
     */
    public S3Buckets buckets()
    {
        return ctx.buckets;
    }

    /**
     * What happens to writes.
     *
     * @return the mode.
     */
    public S3WriteMode writes()
    {
        return ctx.writes;
    }

    /**
     * The clock.
     *
     * @return the clock.
     */
    public Clock clock()
    {
        return ctx.clock;
    }
}
