package dev.offcache.server.s3;

import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The access-key pairs S3 clients sign with (as in {@code OFFCACHE_S3_API_KEYS}: {@code ID:SECRET,ID:SECRET}), and
 * the signing keys derived from them. A signing key depends only on the secret, the date and the region, so one
 * derivation serves a key's requests of a day: they are kept in a bounded map, cleared when full (a client naming
 * ever new regions costs a derivation each, never memory). Immutable pairs, thread-safe cache.
 */
public final class S3Credentials
{
    /** Most signing keys remembered before the map is cleared. */
    static final int MAX_SIGNING_KEYS = 4096;
    private static final String ID_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    private static final String SECRET_CHARS =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/+";

    private final Map<String, String> secrets;
    private final ConcurrentHashMap<String, byte[]> signingKeys = new ConcurrentHashMap<>();

    private S3Credentials(final Map<String, String> secrets)
    {
        this.secrets = Collections.unmodifiableMap(secrets);
    }

    /**
     * Parses {@code ID:SECRET[,ID:SECRET...]}. An access key id is 3 to 128 letters, digits, {@code .}, {@code _}
     * or {@code -}; a secret is 16 to 128 printable characters without a comma or blank.
     *
     * @param commaSeparated the pairs.
     * @return the credentials, at least one pair.
     * @throws IllegalArgumentException naming the problem (never the secret).
     */
    public static S3Credentials parse(final String commaSeparated)
    {
        final Map<String, String> secrets = new LinkedHashMap<>();
        if (null != commaSeparated)
        {
            for (final String pair : commaSeparated.split(","))
            {
                final String trimmed = pair.trim();
                if (trimmed.isEmpty())
                {
                    continue;
                }
                final int colon = trimmed.indexOf(':');
                if (colon < 0)
                {
                    throw new IllegalArgumentException("each S3 API key must be ACCESS_KEY_ID:SECRET");
                }
                final String id = trimmed.substring(0, colon);
                final String secret = trimmed.substring(colon + 1);
                if (!id.matches("[A-Za-z0-9._-]{3,128}"))
                {
                    throw new IllegalArgumentException("S3 access key id '" + id + "' must be 3 to 128 letters, " +
                        "digits, '.', '_' or '-'");
                }
                if (secret.length() < 16 || secret.length() > 128 || !secret.matches("[\\x21-\\x7E]+"))
                {
                    throw new IllegalArgumentException("the secret of S3 access key id '" + id + "' must be 16 to " +
                        "128 printable characters without blanks");
                }
                if (null != secrets.put(id, secret))
                {
                    throw new IllegalArgumentException("S3 access key id '" + id + "' is given twice");
                }
            }
        }
        if (secrets.isEmpty())
        {
            throw new IllegalArgumentException("no S3 API keys given");
        }
        return new S3Credentials(secrets);
    }

    /**
     * One random pair for a run (the embedded default): a 20-character id starting {@code OC}, a 40-character
     * secret, from a {@link SecureRandom}.
     *
     * @param random the source.
     * @return the credentials.
     */
    public static S3Credentials generate(final SecureRandom random)
    {
        final StringBuilder id = new StringBuilder("OC");
        while (id.length() < 20)
        {
            id.append(ID_CHARS.charAt(random.nextInt(ID_CHARS.length())));
        }
        final StringBuilder secret = new StringBuilder(40);
        while (secret.length() < 40)
        {
            secret.append(SECRET_CHARS.charAt(random.nextInt(SECRET_CHARS.length())));
        }
        return parse(id + ":" + secret);
    }

    /**
     * Whether an access key id is configured.
     *
     * @param accessKeyId the id.
     * @return true when it is.
     */
    public boolean knows(final String accessKeyId)
    {
        return secrets.containsKey(accessKeyId);
    }

    /**
     * The signing key of a credential scope, derived once and remembered.
     *
     * @param accessKeyId the id.
     * @param date        the scope's {@code yyyyMMdd}.
     * @param region      the scope's region.
     * @param service     the scope's service.
     * @return the key, or {@code null} when the id is not configured.
     */
    public byte[] signingKey(final String accessKeyId, final String date, final String region, final String service)
    {
        final String secret = secrets.get(accessKeyId);
        if (null == secret)
        {
            return null;
        }
        final String scope = accessKeyId + '/' + date + '/' + region + '/' + service;
        final byte[] known = signingKeys.get(scope);
        if (null != known)
        {
            return known;
        }
        if (signingKeys.size() >= MAX_SIGNING_KEYS)
        {
            signingKeys.clear();
        }
        final byte[] derived = SignatureV4.signingKey(secret, date, region, service);
        signingKeys.put(scope, derived);
        return derived;
    }

    /**
     * The configured access key ids, in the order given.
     *
     * @return the ids.
     */
    public List<String> accessKeyIds()
    {
        return new ArrayList<>(secrets.keySet());
    }

    /**
     * The secret of an id: for Signature Version 2 (an HMAC of the secret itself) and for printing the embedded
     * default's ready command line; never logged.
     *
     * @param accessKeyId the id.
     * @return the secret, or {@code null}.
     */
    public String secretOf(final String accessKeyId)
    {
        return secrets.get(accessKeyId);
    }

    /**
     * Signing keys remembered now, for tests.
     *
     * @return the count.
     */
    int cachedSigningKeys()
    {
        return signingKeys.size();
    }
}
