package dev.offcache.server.http;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;

/**
 * The API keys a client may present as {@code Authorization: Bearer <key>}. Keys are kept as SHA-256 digests and
 * compared with {@link MessageDigest#isEqual} against every configured key, so neither a key's content nor its
 * length leaks through timing. Immutable and thread-safe.
 */
public final class ApiKeys
{
    private static final String BEARER = "Bearer ";

    private final List<byte[]> digests;

    private ApiKeys(final List<byte[]> digests)
    {
        this.digests = digests;
    }

    /**
     * Parses a comma-separated key list (as in {@code OFFCACHE_API_KEYS}).
     *
     * @param commaSeparated the keys; blanks around commas are ignored.
     * @return the keys; at least one.
     */
    public static ApiKeys parse(final String commaSeparated)
    {
        final List<byte[]> digests = new ArrayList<>();
        if (null != commaSeparated)
        {
            for (final String key : commaSeparated.split(","))
            {
                final String trimmed = key.trim();
                if (!trimmed.isEmpty())
                {
                    if (trimmed.length() < 16)
                    {
                        throw new IllegalArgumentException("API keys must be at least 16 characters");
                    }
                    digests.add(sha256(trimmed));
                }
            }
        }
        if (digests.isEmpty())
        {
            throw new IllegalArgumentException("no API keys given");
        }
        return new ApiKeys(List.copyOf(digests));
    }

    /**
     * Checks an {@code Authorization} header value.
     *
     * @param authorization the header, may be {@code null}.
     * @return whether it carries one of the keys.
     */
    public boolean allows(final String authorization)
    {
        // the scheme is case-insensitive (RFC 7235): "bearer KEY" is the same credential
        if (null == authorization || authorization.length() > 4096 ||
            !authorization.regionMatches(true, 0, BEARER, 0, BEARER.length()))
        {
            return false;
        }
        final byte[] presented = sha256(authorization.substring(BEARER.length()).trim());
        boolean match = false;
        for (final byte[] digest : digests)
        {
            match |= MessageDigest.isEqual(digest, presented);
        }
        return match;
    }

    private static byte[] sha256(final String key)
    {
        try
        {
            return MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
        }
        catch (final NoSuchAlgorithmException ex)
        {
            throw new IllegalStateException(ex);
        }
    }
}
