package dev.offcache.range.origin;

import java.util.List;

/**
 * One page of an origin's listing, as S3's {@code ListObjectsV2} answers it: the objects (with their size, time and
 * entity tag) and, when the request groups keys by a delimiter, the common prefixes, each list in key order. Never
 * cached: a listing always comes from the origin.
 *
 * @param objects               objects on this page, sorted by key.
 * @param commonPrefixes        the grouped prefixes on this page (each ends with the delimiter), sorted.
 * @param nextContinuationToken where the next page starts, or {@code null} when this is the last page. Opaque: only
 *                              the origin that made it can read it.
 */
public record ListPage(List<ObjectInfo> objects, List<String> commonPrefixes, String nextContinuationToken)
{
    /** The most entries (objects and common prefixes together) a page holds, as in S3. */
    public static final int MAX_KEYS = 1000;

    /**
     * Copies the lists.
     *
     * @param objects               objects, sorted.
     * @param commonPrefixes        common prefixes, sorted.
     * @param nextContinuationToken the next page's token or {@code null}.
     */
    public ListPage
    {
        objects = List.copyOf(objects);
        commonPrefixes = List.copyOf(commonPrefixes);
    }

    /**
     * Whether more entries follow this page.
     *
     * @return true when {@link #nextContinuationToken()} is set.
     */
    public boolean truncated()
    {
        return null != nextContinuationToken;
    }

    /**
     * What to list: keys under {@code prefix}, grouped at the first {@code delimiter} after it, starting after a
     * continuation token (or, without one, after {@code startAfter}), at most {@code maxKeys} entries.
     *
     * @param prefix            the key prefix, empty for all.
     * @param delimiter         groups keys into common prefixes, or {@code null} for a flat listing.
     * @param continuationToken the previous page's {@link ListPage#nextContinuationToken()}, or {@code null}.
     * @param startAfter        list keys after this one (ignored with a continuation token), or {@code null}.
     * @param maxKeys           entries on the page, 0 to {@link #MAX_KEYS}.
     */
    public record Request(String prefix, String delimiter, String continuationToken, String startAfter, int maxKeys)
    {
        /**
         * Normalises empty values to absent ones and checks the bound.
         *
         * @param prefix            the prefix, {@code null} for all.
         * @param delimiter         the delimiter, {@code null} or empty for none.
         * @param continuationToken the token, {@code null} or empty for none.
         * @param startAfter        the start key, {@code null} or empty for none.
         * @param maxKeys           0 to {@link #MAX_KEYS}.
         */
        public Request
        {
            prefix = null == prefix ? "" : prefix;
            delimiter = null == delimiter || delimiter.isEmpty() ? null : delimiter;
            continuationToken = null == continuationToken || continuationToken.isEmpty() ? null : continuationToken;
            startAfter = null == startAfter || startAfter.isEmpty() ? null : startAfter;
            if (maxKeys < 0 || maxKeys > MAX_KEYS)
            {
                throw new IllegalArgumentException("maxKeys must be 0 to " + MAX_KEYS + ", was " + maxKeys);
            }
        }

        /**
         * A flat listing of everything under a prefix, first page.
         *
         * @param prefix the prefix.
         * @return the request.
         */
        public static Request of(final String prefix)
        {
            return new Request(prefix, null, null, null, MAX_KEYS);
        }
    }
}
