package dev.offcache.range.metrics;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.offcache.range.engine.RangeCache;
import dev.offcache.range.ram.RamBlockStore;
import dev.offcache.range.l2.L2ClientCounters;
import dev.offcache.range.l2.shard.L2Shard;
import dev.offcache.range.metadata.ParquetFooterCache;
import dev.offcache.range.origin.FileSystemOrigin;
import dev.offcache.range.testing.DocsPages;
import dev.offcache.range.testing.Exposition;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The docs and the code name the same metrics: every family the engine (with a RAM store), the footer cache and the
 * L2 client export, and every router counter, appears by its full name in {@code docs/}; and every
 * {@code offcache_range_*}, {@code offcache_l2client_*}, {@code offcache_l2shard_*} and
 * {@code offcache_metadata_cache_*} name in {@code docs/} is one of them (a name ending in {@code _} or {@code *} is
 * a prefix, not a name).
 */
class MetricsDocumentedTest
{
    private static final Pattern NAME =
        Pattern.compile("offcache_(?:range|l2client|l2shard|metadata_cache)_[a-z0-9_]*");

    @TempDir
    Path root;

    @Test
    void everyExportedFamilyIsDocumentedAndEveryDocumentedNameIsExported() throws IOException
    {
        final Set<String> exported = new TreeSet<>();
        try (RangeCache cache = RangeCache.newBuilder().origin(new FileSystemOrigin(root, 1)).blockSize(4096)
            .store(RamBlockStore.create(4L * 4096, 4096)).build();
            L2ClientCounters client = new L2ClientCounters())
        {
            final MetricFamilies out = new MetricFamilies();
            cache.metrics().collectInto(out);
            new ParquetFooterCache<String>(1 << 20, 1 << 20, (key, destination, offset, length) -> 0)
                .collectInto(out);
            client.collectInto(out);
            exported.addAll(Exposition.parse(out.toText()).types().keySet());
        }
        for (final L2Shard.Counter counter : L2Shard.Counter.values())
        {
            exported.add(counter.metricName());
        }
        // the router's own families, written beside the per-server counters (ShardedL2Client.collectInto)
        exported.addAll(List.of("offcache_l2shard_servers", "offcache_l2shard_no_server_total",
            "offcache_l2shard_healthy", "offcache_l2shard_available"));

        final String docs = DocsPages.all();
        assertEquals(Set.of(), DocsPages.undocumented(exported, docs), "exported, but not named in docs/");
        assertEquals(Set.of(), DocsPages.notExported(NAME, exported, docs), "named in docs/, but not exported");
    }
}
