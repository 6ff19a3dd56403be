package dev.offcache.range.origin;

import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.BiConsumer;

/**
 * The headers an origin stores with an object version beside its bytes, as S3 defines them: {@code Content-Type},
 * {@code Cache-Control}, {@code Expires}, {@code Content-Encoding}, {@code Content-Language},
 * {@code Content-Disposition}, user metadata ({@code x-amz-meta-*}), the storage class, server-side encryption, and
 * the other {@code x-amz-*} headers S3 sets on a {@code GetObject} or {@code HeadObject} answer from what the object
 * was written with. Like the bytes they are write-once per version, so the engine keeps them with the version's size
 * and tag ({@link ObjectInfo#metadata()}) and a cache answers with them exactly. A listing's entries carry what a
 * listing says instead: the storage class and the owner ({@link #OWNER_ID}, {@link #OWNER_DISPLAY_NAME}).
 *
 * <p>Names are lower case, sorted; values as the origin sent them. Bounded: S3 caps the request headers that set
 * them at 8 KB (user metadata at 2 KB), so at most {@link #MAX_BYTES} of names and values are accepted. Immutable and
 * thread-safe; on the heap (one small array per version the engine remembers).
 */
public final class ObjectMetadata
{
    /** No stored headers (an origin that keeps none, or a version not described yet). */
    public static final ObjectMetadata NONE = new ObjectMetadata(new String[0]);
    /** The most bytes of names and values kept: S3's limit on the request headers that set them. */
    public static final int MAX_BYTES = 8 * 1024;
    /** In a listing's entries only: the owner's canonical id, where the origin lists it. */
    public static final String OWNER_ID = "owner-id";
    /** In a listing's entries only: the owner's display name, where the origin lists it. */
    public static final String OWNER_DISPLAY_NAME = "owner-display-name";
    /** The prefix of user metadata headers. */
    public static final String USER_PREFIX = "x-amz-meta-";

    private static final String[] STORED = {
        "cache-control",
        "content-disposition",
        "content-encoding",
        "content-language",
        "content-type",
        "expires",
        "x-amz-object-lock-legal-hold",
        "x-amz-object-lock-mode",
        "x-amz-object-lock-retain-until-date",
        "x-amz-server-side-encryption",
        "x-amz-server-side-encryption-aws-kms-key-id",
        "x-amz-server-side-encryption-bucket-key-enabled",
        "x-amz-storage-class",
        "x-amz-tagging-count",
        "x-amz-website-redirect-location",
    };

    private final String[] fields;

    private ObjectMetadata(final String[] fields)
    {
        this.fields = fields;
    }

    /**
     * Whether a header is one S3 stores with an object and returns on its reads: one of the fields above or user
     * metadata.
     *
     * @param name a header name, any case.
     * @return true when it is kept.
     */
    public static boolean isStored(final String name)
    {
        final String lower = name.toLowerCase(Locale.ROOT);
        return (lower.startsWith(USER_PREFIX) && lower.length() > USER_PREFIX.length()) ||
            Arrays.binarySearch(STORED, lower) >= 0;
    }

    /**
     * The stored headers among an answer's (or a write request's) headers; other headers are left out.
     *
     * @param headers header names (any case) and their values; a name with several values keeps them joined by
     *                {@code ","}, as HTTP allows.
     * @return the metadata.
     * @throws IllegalArgumentException when the stored headers exceed {@link #MAX_BYTES}.
     */
    public static ObjectMetadata of(final Map<String, ? extends Iterable<String>> headers)
    {
        final TreeMap<String, String> kept = new TreeMap<>();
        headers.forEach((name, values) ->
        {
            if (isStored(name))
            {
                final StringBuilder joined = new StringBuilder();
                for (final String value : values)
                {
                    joined.append(joined.length() == 0 ? "" : ",").append(value);
                }
                kept.merge(name.toLowerCase(Locale.ROOT), joined.toString(), (a, b) -> a + "," + b);
            }
        });
        return ofFields(kept);
    }

    /**
     * Metadata of given fields, every one kept whatever its name (callers that already chose them).
     *
     * @param fields lower-case names and values.
     * @return the metadata.
     * @throws IllegalArgumentException when they exceed {@link #MAX_BYTES}.
     */
    public static ObjectMetadata ofFields(final Map<String, String> fields)
    {
        if (fields.isEmpty())
        {
            return NONE;
        }
        final TreeMap<String, String> sorted = new TreeMap<>(fields);
        final String[] flat = new String[sorted.size() * 2];
        int i = 0;
        long bytes = 0;
        for (final Map.Entry<String, String> field : sorted.entrySet())
        {
            flat[i++] = field.getKey().toLowerCase(Locale.ROOT);
            flat[i++] = field.getValue();
            bytes += field.getKey().length() + field.getValue().length();
        }
        if (bytes > MAX_BYTES)
        {
            throw new IllegalArgumentException("object metadata of " + bytes + " bytes (S3 allows " + MAX_BYTES + ")");
        }
        return new ObjectMetadata(flat);
    }

    /**
     * How many headers.
     *
     * @return the count.
     */
    public int count()
    {
        return fields.length / 2;
    }

    /**
     * Whether there are none.
     *
     * @return true when empty.
     */
    public boolean isEmpty()
    {
        return fields.length == 0;
    }

    /**
     * A header's value.
     *
     * @param name the lower-case name.
     * @return the value, or {@code null} when absent.
     */
    public String get(final String name)
    {
        for (int i = 0; i < fields.length; i += 2)
        {
            if (fields[i].equals(name))
            {
                return fields[i + 1];
            }
        }
        return null;
    }

    /**
     * Hands every header to an action, in name order.
     *
     * @param action takes the lower-case name and the value.
     */
    public void forEach(final BiConsumer<String, String> action)
    {
        for (int i = 0; i < fields.length; i += 2)
        {
            action.accept(fields[i], fields[i + 1]);
        }
    }

    @Override
    public boolean equals(final Object other)
    {
        return this == other || other instanceof ObjectMetadata that && Arrays.equals(fields, that.fields);
    }

    @Override
    public int hashCode()
    {
        return Arrays.hashCode(fields);
    }

    @Override
    public String toString()
    {
        final StringBuilder out = new StringBuilder("{");
        forEach((name, value) -> out.append(out.length() == 1 ? "" : ", ").append(name).append('=').append(value));
        return out.append('}').toString();
    }
}
