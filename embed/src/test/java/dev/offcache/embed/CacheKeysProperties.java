package dev.offcache.embed;

import java.net.URI;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.AlphaChars;
import net.jqwik.api.constraints.Chars;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.StringLength;

import dev.offcache.range.origin.ObjectKeys;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

/**
 * Keys of any path are valid range-cache keys and decode back to the location and length; another length or
 * version is another key.
 */
class CacheKeysProperties
{
    @Property(tries = 500)
    void keysAreValidAndDecodeBack(
        @ForAll @AlphaChars @Chars({'/', '.', '%', '\\', ' ', '#', '-', '\u00e9', ':'}) @StringLength(min = 1, max = 40)
        final String path,
        @ForAll @LongRange(min = 0, max = 1L << 45) final long length,
        @ForAll @LongRange(min = 0) final long mtime) throws Exception
    {
        final URI location = new URI("s3a", "bucket-1", "/" + path, null, null);
        final String key = CacheKeys.key(location, length, CacheKeys.mtimeVersion(mtime));
        ObjectKeys.validate(key);
        assertEquals(location.getPath(), CacheKeys.locationOf(key).getPath());
        assertEquals("s3a/bucket-1", CacheKeys.prefixOf(key));
        assertEquals(length, CacheKeys.lengthOf(key));
        assertNotEquals(key, CacheKeys.key(location, length + 1, CacheKeys.mtimeVersion(mtime)));
        assertNotEquals(key, CacheKeys.key(location, length, CacheKeys.mtimeVersion(mtime + 1)));
        assertNotEquals(key, CacheKeys.key(location, length, CacheKeys.etagVersion("\"" + mtime + "/x\"")));
    }
}
