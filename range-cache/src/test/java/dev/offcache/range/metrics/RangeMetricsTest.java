package dev.offcache.range.metrics;

import java.nio.MappedByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.agrona.IoUtil;
import org.agrona.concurrent.UnsafeBuffer;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.offcache.core.counters.CounterTypes;
import dev.offcache.range.testing.EngineFixture;
import dev.offcache.range.testing.Exposition;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RangeMetricsTest
{
    private static final int BLOCK = 4096;

    @TempDir
    Path dir;

    @Test
    void countersAreReadableFromTheMappedFileWhileTheEngineRuns()
    {
        final Path file = dir.resolve("range-counters.dat");
        try (EngineFixture f = new EngineFixture(BLOCK, 4L * BLOCK, (b) -> b.countersFile(file)))
        {
            f.object("m", 6 * BLOCK, 1);
            f.read("m", 0, 3 * BLOCK);
            f.read("m", 0, 3 * BLOCK);
            f.read("m", 3 * BLOCK, 3 * BLOCK);

            final Map<String, Long> fromFile = CountersFile.read(file);
            assertEquals(9L, fromFile.get(MetricNames.BLOCK_REQUESTS));
            assertEquals(3L, fromFile.get(MetricNames.BLOCK_HITS));
            assertEquals(6L, fromFile.get(MetricNames.BLOCK_MISSES));
            assertEquals(2L, fromFile.get(MetricNames.ORIGIN_GETS + MetricNames.DEMAND));
            assertEquals(6L * BLOCK, fromFile.get(MetricNames.ORIGIN_BYTES + MetricNames.DEMAND));
            assertEquals(1L, fromFile.get(MetricNames.ORIGIN_HEADS));
            assertEquals(6L, fromFile.get(MetricNames.STORE_PUTS) + fromFile.get(MetricNames.STORE_DECLINES));
            assertEquals(f.store.evictionCount(), fromFile.get(MetricNames.EVICTIONS));
            assertEquals(0L, fromFile.get(MetricNames.FETCHES_IN_FLIGHT));

            final Exposition page = Exposition.parse(f.cache.metrics().toPrometheusText());
            assertEquals(2, page.value(MetricNames.ORIGIN_GETS, "class", "demand"));
            assertEquals(0, page.value(MetricNames.ORIGIN_GETS, "class", "prefetch"));
            assertEquals(2, page.value(MetricNames.ORIGIN_GET_SECONDS + "_count"));
            assertEquals("counter", page.types().get(MetricNames.BLOCK_HITS));
            for (final Map.Entry<String, Long> counter : fromFile.entrySet())
            {
                final int brace = counter.getKey().indexOf('{');
                final String family = brace < 0 ? counter.getKey() : counter.getKey().substring(0, brace);
                assertTrue(page.helps().containsKey(family), family + " exported with HELP");
            }
            assertEquals(2, f.cache.metrics().originGetLatency().getTotalCount());

            final MappedByteBuffer mapping = IoUtil.mapExistingFile(file.toFile(), "counters");
            try
            {
                final List<Integer> types = new ArrayList<>();
                RangeMetrics.reader(new UnsafeBuffer(mapping)).forEach(
                    (counterId, typeId, key, label) -> types.add(typeId));
                assertEquals(fromFile.size(), types.size());
                assertTrue(types.stream().allMatch((type) -> type == CounterTypes.RANGE_ENGINE), types::toString);
            }
            finally
            {
                IoUtil.unmap(mapping);
            }
        }
    }
}
