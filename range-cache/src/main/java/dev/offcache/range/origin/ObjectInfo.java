package dev.offcache.range.origin;

/**
 * What an origin says about one object version: its size and, where the origin knows them, when it was last
 * modified and its entity tag. A HEAD gives it ({@link ObjectStore#stat}); so does a listing
 * ({@link ObjectStore#listPage}). Objects are write-once, so within one version none of it changes.
 *
 * @param key                the object key.
 * @param size               bytes, at least 0.
 * @param lastModifiedMillis milliseconds since the epoch, or {@link #UNKNOWN_TIME} when the origin does not say.
 * @param etag               the entity tag as an HTTP header carries it (quotes included, for example
 *                           {@code "9b2cf535f27731c974343645a3985328"}), or {@code null} when the origin has none.
 * @param metadata           the headers stored with the version ({@code Content-Type}, user metadata...), where the
 *                           origin has them and said them ({@link ObjectMetadata#NONE} otherwise, never null).
 */
public record ObjectInfo(String key, long size, long lastModifiedMillis, String etag, ObjectMetadata metadata)
{
    /** {@link #lastModifiedMillis()} when the origin does not say. */
    public static final long UNKNOWN_TIME = -1;

    /**
     * Checks the fields.
     *
     * @param key                the object key.
     * @param size               bytes.
     * @param lastModifiedMillis epoch milliseconds or {@link #UNKNOWN_TIME}.
     * @param etag               the entity tag or {@code null}.
     * @param metadata           the stored headers, {@code null} for none.
     */
    public ObjectInfo
    {
        metadata = null == metadata ? ObjectMetadata.NONE : metadata;
        if (key == null || key.isEmpty())
        {
            throw new IllegalArgumentException("object key must not be empty");
        }
        if (size < 0)
        {
            throw new IllegalArgumentException("negative size " + size + " of '" + key + "'");
        }
        if (lastModifiedMillis < UNKNOWN_TIME)
        {
            throw new IllegalArgumentException("bad last-modified time " + lastModifiedMillis + " of '" + key + "'");
        }
    }

    /**
     * What an origin says without stored headers (a listing, an origin that keeps none).
     *
     * @param key                the object key.
     * @param size               bytes.
     * @param lastModifiedMillis epoch milliseconds or {@link #UNKNOWN_TIME}.
     * @param etag               the entity tag or {@code null}.
     */
    public ObjectInfo(final String key, final long size, final long lastModifiedMillis, final String etag)
    {
        this(key, size, lastModifiedMillis, etag, ObjectMetadata.NONE);
    }

    /**
     * The same version under another key (a key the caller knows it by, such as its key inside a bucket).
     *
     * @param other the key.
     * @return the description with that key.
     */
    public ObjectInfo withKey(final String other)
    {
        return other.equals(key) ? this : new ObjectInfo(other, size, lastModifiedMillis, etag, metadata);
    }

    /**
     * Whether the origin gave a last-modified time.
     *
     * @return true when {@link #lastModifiedMillis()} is a time.
     */
    public boolean hasLastModified()
    {
        return lastModifiedMillis != UNKNOWN_TIME;
    }
}
