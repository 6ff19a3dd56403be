package dev.offcache.server.s3;

import dev.offcache.range.origin.ObjectInfo;

/**
 * One part of an object version, what a {@code partNumber} read answers with: the version (its headers), the part's
 * bytes in it, and the object's part count ({@code x-amz-mp-parts-count}; 0 for an object not uploaded in parts,
 * whose only part, 1, is the whole object and whose answer carries no count, as S3's).
 *
 * @param version    the object version.
 * @param start      the part's first byte.
 * @param length     its length.
 * @param partsCount the object's parts, 0 when it was not uploaded in parts, {@link #WHOLE} when the origin does not
 *                   serve parts.
 */
public record ObjectPart(ObjectInfo version, long start, long length, int partsCount)
{
    /**
     * {@link #partsCount()} of the answer of an origin that does not serve parts (it answers a {@code partNumber}
     * read with the whole object, 200, no count, as S3Proxy does): the endpoint answers as the origin.
     */
    public static final int WHOLE = -1;

    /**
     * The part count an entity tag tells: S3 tags an object completed from N parts {@code "HEX-N"}.
     *
     * @param etag the tag, quoted or not, or {@code null}.
     * @return N, or 0 for a tag without a part count.
     */
    public static int countInTag(final String etag)
    {
        if (null == etag)
        {
            return 0;
        }
        final String tag = etag.endsWith("\"") ? etag.substring(0, etag.length() - 1) : etag;
        final int dash = tag.lastIndexOf('-');
        if (dash < 0 || dash == tag.length() - 1 || tag.length() - dash > 6)
        {
            return 0;
        }
        int count = 0;
        for (int i = dash + 1; i < tag.length(); i++)
        {
            final char c = tag.charAt(i);
            if (c < '0' || c > '9')
            {
                return 0;
            }
            count = count * 10 + (c - '0');
        }
        return count;
    }
}
