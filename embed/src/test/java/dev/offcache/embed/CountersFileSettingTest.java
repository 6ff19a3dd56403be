package dev.offcache.embed;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.offcache.range.metrics.CountersFile;
import dev.offcache.range.metrics.MetricNames;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The shared cache's counters in a file another process can read ({@code offcache.counters.file}): the property wins
 * over the variable, {@code %p} is the pid, a second cache gets its own file; a real shared cache reading a file twice
 * through its router leaves the origin's GETs and bytes and the second read's hits in the file, as
 * {@code CountersFile.read} (what {@code offcache-counters} prints) sees them; without a setting no file is made.
 */
class CountersFileSettingTest
{
    @TempDir
    Path tmp;

    @AfterEach
    void close()
    {
        JvmCaches.closeAll();
        System.clearProperty(CountersFileSetting.PROPERTY);
    }

    @Test
    void thePropertyWinsPidIsExpandedAndLaterCachesGetTheirOwnFile()
    {
        final Map<String, String> env = Map.of(CountersFileSetting.ENV, "/var/tmp/env-%p");
        assertEquals(Path.of("/tmp/prop-42.c"), CountersFileSetting.resolve(
            Map.of(CountersFileSetting.PROPERTY, "/tmp/prop-%p.c")::get, env, 42, 1));
        assertEquals(Path.of("/var/tmp/env-7"), CountersFileSetting.resolve((k) -> null, env, 7, 1));
        assertEquals(Path.of("/var/tmp/env-7.3"), CountersFileSetting.resolve((k) -> " ", env, 7, 3));
        assertNull(CountersFileSetting.resolve((k) -> null, Map.of(), 7, 1));
    }

    @Test
    void aSharedCachesCountersAreReadableFromItsFile() throws IOException
    {
        System.setProperty(CountersFileSetting.PROPERTY, tmp.resolve("cache-%p").toString());
        final byte[] file = new byte[300_000];
        for (int i = 0; i < file.length; i++)
        {
            file[i] = (byte) (i * 31 + (i >>> 11));
        }
        final SharedCache shared = JvmCaches.get(new CacheSettings(4L << 20, 64 << 10, 1L << 20, 4));
        shared.router().register("s3a/lake", (location, length, offset, destination) ->
        {
            final int n = destination.remaining();
            destination.put(file, (int) offset, n);
            return CompletableFuture.completedFuture(n);
        });
        final String key = shared.open(URI.create("s3a://lake/t/counted.bin"), file.length, CacheKeys.mtimeVersion(1));
        final byte[] got = new byte[file.length];
        shared.cache().read(key, 0, got, 0, got.length);
        shared.cache().read(key, 0, got, 0, got.length);
        assertArrayEquals(file, got);

        final List<Path> files;
        try (Stream<Path> listed = Files.list(tmp))
        {
            files = listed.toList();
        }
        assertEquals(1, files.size(), files.toString());
        final String name = files.get(0).getFileName().toString();
        assertTrue(name.startsWith("cache-" + ProcessHandle.current().pid()), name);
        final Map<String, Long> counters = CountersFile.read(files.get(0));
        assertEquals(file.length, counters.get(MetricNames.ORIGIN_BYTES + MetricNames.DEMAND), counters.toString());
        assertEquals(1, counters.get(MetricNames.ORIGIN_GETS + MetricNames.DEMAND),
            "the 5 missing blocks in one GET: " + counters);
        assertEquals(5, counters.get(MetricNames.BLOCK_MISSES), "the first read missed every block: " + counters);
        assertEquals(5, counters.get(MetricNames.BLOCK_HITS), "the second read hit every block: " + counters);
    }
}
