package dev.offcache.embed;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.net.URI;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code offcache.l2.*} settings: parsing, refusals naming the key, the API key from the environment, the mapping of
 * engine locations to server keys, and the key never shown.
 */
class L2SettingsTest
{
    private static L2Settings parse(final Map<String, String> conf)
    {
        return L2Settings.from(conf::get, (name) -> null);
    }

    @Test
    void noServersIsNoL2()
    {
        assertSame(L2Settings.NONE, parse(Map.of()));
        assertFalse(CacheSettings.from((k) -> null).l2().enabled());
    }

    @Test
    void serversKeyAndLocationsAreParsedAndNormalised()
    {
        final L2Settings settings = parse(Map.of(
            L2Settings.SERVERS, " http://L2-a:8080/ , http://l2-b:9090",
            L2Settings.API_KEY, "secret-key",
            L2Settings.LOCATIONS, "s3a://lake, S3://lake/, file:///data/lake",
            L2Settings.ABANDON_TIMEOUT_MS, "750"));
        assertEquals(List.of(URI.create("http://l2-a:8080"), URI.create("http://l2-b:9090")), settings.servers());
        assertEquals("secret-key", settings.apiKey());
        assertEquals(3, settings.locations().size());
        assertTrue(settings.locations().contains(URI.create("s3a://lake/")));
        assertTrue(settings.locations().contains(URI.create("s3://lake/")));
        assertTrue(settings.locations().contains(URI.create("file:///data/lake/")));
        assertEquals(750, settings.abandonTimeoutMs());
        assertEquals(3000, settings.stallTimeoutMs());
        assertFalse(settings.toString().contains("secret-key"), settings.toString());
    }

    @Test
    void theApiKeyComesFromTheEnvironmentWhenTheConfigurationHasNone()
    {
        final L2Settings settings = L2Settings.from(Map.of(L2Settings.SERVERS, "http://l2:8080",
            L2Settings.LOCATIONS, "s3a://lake/")::get, Map.of(L2Settings.API_KEY_ENV, "from-env")::get);
        assertEquals("from-env", settings.apiKey());
    }

    @Test
    void badSettingsAreRefusedNamingTheKey()
    {
        final Map<String, String> good = Map.of(L2Settings.SERVERS, "http://l2:8080", L2Settings.API_KEY, "k",
            L2Settings.LOCATIONS, "s3a://lake/");
        assertRefused(L2Settings.API_KEY, Map.of(L2Settings.SERVERS, "http://l2:8080",
            L2Settings.LOCATIONS, "s3a://lake/"));
        assertRefused(L2Settings.LOCATIONS, Map.of(L2Settings.SERVERS, "http://l2:8080", L2Settings.API_KEY, "k"));
        assertRefused(L2Settings.SERVERS, Map.of(L2Settings.LOCATIONS, "s3a://lake/", L2Settings.API_KEY, "k"));
        assertRefused(L2Settings.SERVERS, with(good, L2Settings.SERVERS, "https://l2:8443"));
        assertRefused(L2Settings.SERVERS, with(good, L2Settings.SERVERS, "http://l2:8080,http://L2:8080/"));
        assertRefused(L2Settings.SERVERS, with(good, L2Settings.SERVERS, "http://l2:8080,,http://l3:8080"));
        assertRefused(L2Settings.LOCATIONS, with(good, L2Settings.LOCATIONS, "lake/no-scheme"));
        assertRefused(L2Settings.LOCATIONS, with(good, L2Settings.LOCATIONS, "s3a://lake/?x=1"));
        assertRefused(L2Settings.API_KEY, with(good, L2Settings.API_KEY, "two words"));
        assertRefused(L2Settings.ABANDON_TIMEOUT_MS, with(good, L2Settings.ABANDON_TIMEOUT_MS, "0"));
        assertRefused(L2Settings.STALL_TIMEOUT_MS, with(good, L2Settings.STALL_TIMEOUT_MS, "soon"));
    }

    private static Map<String, String> with(final Map<String, String> base, final String key, final String value)
    {
        final java.util.HashMap<String, String> copy = new java.util.HashMap<>(base);
        copy.put(key, value);
        return copy;
    }

    private static void assertRefused(final String key, final Map<String, String> conf)
    {
        final IllegalArgumentException error = assertThrows(IllegalArgumentException.class, () -> parse(conf));
        assertTrue(error.getMessage().contains(key), error.getMessage());
        assertFalse(error.getMessage().contains("two words"), "the API key is never echoed: " + error.getMessage());
    }

    @Test
    void aFileMapsToItsPathUnderTheDeepestRootAndElsewhereToNothing()
    {
        final L2Settings settings = parse(Map.of(L2Settings.SERVERS, "http://l2:8080", L2Settings.API_KEY, "k",
            L2Settings.LOCATIONS, "s3a://lake/,s3a://lake/warehouse/mounted/,file:///data/"));
        assertEquals("t/date=2024-01-01/part 0.parquet",
            settings.serverKey(URI.create("s3a://lake/t/date=2024-01-01/part%200.parquet")));
        assertEquals("t/part-1.parquet", settings.serverKey(URI.create("S3A://LAKE/t/part-1.parquet")));
        assertEquals("x.parquet", settings.serverKey(URI.create("s3a://lake/warehouse/mounted/x.parquet")));
        assertEquals("lake/a.bin", settings.serverKey(URI.create("file:///data/lake/a.bin")));
        assertNull(settings.serverKey(URI.create("s3a://other/t/part-1.parquet")), "another bucket");
        assertNull(settings.serverKey(URI.create("s3://lake/t/part-1.parquet")), "another scheme");
        assertNull(settings.serverKey(URI.create("file:///database/a.bin")), "a sibling, not a child");
        assertNull(settings.serverKey(URI.create("s3a://lake/")), "the root itself is no file");
        assertNull(settings.serverKey(URI.create("s3a://lake/a//b")), "not a valid server key");
        // What adapters hand over: the location decoded from a cache key.
        final String key = CacheKeys.key(URI.create("s3a://lake/t/part-2.parquet"), 10, CacheKeys.LENGTH_ONLY);
        assertEquals("t/part-2.parquet", settings.serverKey(CacheKeys.locationOf(key)));
    }

    @Test
    void settingsWithL2AreAValueThatSurvivesSerialization() throws Exception
    {
        final Map<String, String> conf = Map.of(L2Settings.SERVERS, "http://l2:8080", L2Settings.API_KEY, "k",
            L2Settings.LOCATIONS, "s3a://lake/", CacheSettings.L1_MB, "8");
        final CacheSettings settings = CacheSettings.from(conf::get, (name) -> null);
        assertEquals(settings, CacheSettings.from(conf::get, (name) -> null));
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes))
        {
            out.writeObject(settings);
        }
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray())))
        {
            assertEquals(settings, in.readObject());
        }
        assertFalse(settings.equals(new CacheSettings(8L << 20, settings.blockSize(), settings.metadataCacheBytes(),
            settings.fetchPermits())), "L2 settings are part of the cache's identity");
    }
}
