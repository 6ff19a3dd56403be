package dev.offcache.range.origin;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * Cuts a sorted key listing into {@link ListPage}s the way S3 does, for origins that list by walking all their keys
 * (a local directory, or any origin through {@link ObjectStore#listPage}'s default): keys under the prefix, rolled up
 * to common prefixes at the first delimiter after it, after a marker, at most {@code maxKeys} entries (objects and
 * prefixes together).
 *
 * <p>The continuation token is the last entry of the page (an object key or a common prefix), Base64url-encoded:
 * the next page holds the entries after it, and a common prefix equal to it is never repeated. A {@code startAfter}
 * key is the same kind of marker. Stateless and thread-safe.
 */
public final class ListPages
{
    private ListPages()
    {
    }

    /**
     * Which keys and common prefixes one page holds.
     *
     * @param objectKeys            keys listed as objects, sorted.
     * @param commonPrefixes        common prefixes, sorted.
     * @param nextContinuationToken the token of the next page, or {@code null} on the last page.
     */
    public record Selection(List<String> objectKeys, List<String> commonPrefixes, String nextContinuationToken)
    {
    }

    /**
     * Selects one page.
     *
     * @param sortedKeys every key the origin holds under the request's prefix (more are ignored), in ascending
     *                   {@link String#compareTo} order.
     * @param request    the request.
     * @return the page's keys and prefixes.
     * @throws IllegalArgumentException when the continuation token is not one this class made.
     */
    public static Selection select(final List<String> sortedKeys, final ListPage.Request request)
    {
        final String marker = null != request.continuationToken() ?
            decodeToken(request.continuationToken()) : request.startAfter();
        final String prefix = request.prefix();
        final String delimiter = request.delimiter();
        final List<String> objects = new ArrayList<>();
        final List<String> prefixes = new ArrayList<>();
        String last = null;
        int entries = 0;
        for (final String key : sortedKeys)
        {
            if (!key.startsWith(prefix) || (null != marker && key.compareTo(marker) <= 0))
            {
                continue;
            }
            final String rolledUp = rollUp(key, prefix, delimiter);
            if (null != rolledUp && (rolledUp.equals(marker) || rolledUp.equals(last)))
            {
                continue;
            }
            if (entries == request.maxKeys())
            {
                return new Selection(objects, prefixes, entries == 0 ? null : encodeToken(last));
            }
            if (null == rolledUp)
            {
                objects.add(key);
                last = key;
            }
            else
            {
                prefixes.add(rolledUp);
                last = rolledUp;
            }
            entries++;
        }
        return new Selection(objects, prefixes, null);
    }

    /**
     * The common prefix a key rolls up to: the prefix plus everything up to and including the first delimiter
     * after it, or {@code null} when the key is listed as an object.
     *
     * @param key       a key under {@code prefix}.
     * @param prefix    the listing's prefix.
     * @param delimiter the delimiter, or {@code null}.
     * @return the common prefix or {@code null}.
     */
    public static String rollUp(final String key, final String prefix, final String delimiter)
    {
        if (null == delimiter)
        {
            return null;
        }
        final int at = key.indexOf(delimiter, prefix.length());
        return at < 0 ? null : key.substring(0, at + delimiter.length());
    }

    private static String encodeToken(final String marker)
    {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(marker.getBytes(StandardCharsets.UTF_8));
    }

    private static String decodeToken(final String token)
    {
        try
        {
            final String marker = new String(Base64.getUrlDecoder().decode(token), StandardCharsets.UTF_8);
            if (marker.isEmpty() || !encodeToken(marker).equals(token))
            {
                throw new IllegalArgumentException("the continuation token is not valid");
            }
            return marker;
        }
        catch (final IllegalArgumentException ex)
        {
            throw new IllegalArgumentException("the continuation token is not valid", ex);
        }
    }
}
