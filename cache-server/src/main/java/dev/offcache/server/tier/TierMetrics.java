package dev.offcache.server.tier;

import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

import dev.offcache.range.metrics.MetricNames;
import dev.offcache.range.metrics.RangeMetrics;
import dev.offcache.range.metrics.MetricFamilies;

/**
 * Counters and gauges of the tiered store, shared by its tiers and rendered on {@code /metrics}. Counters only
 * grow; gauges are the current value.
 *
 * <p>Block lookups are counted once each by the engine that owns the store (it knows which lookups belong to one
 * read), so the lookup counters here are read from the engine's: bind it with {@link #countLookupsOf}.
 */
public final class TierMetrics
{
    private volatile RangeMetrics engine;
    final LongAdder ramEvictions = new LongAdder();
    final LongAdder ramPromotions = new LongAdder();
    final LongAdder putsDeclined = new LongAdder();
    final LongAdder spillsQueued = new LongAdder();
    final LongAdder spillsDropped = new LongAdder();
    final LongAdder ssdWrites = new LongAdder();
    final LongAdder ssdWriteFailures = new LongAdder();
    final LongAdder ssdStaleWritesDropped = new LongAdder();
    final LongAdder ssdEvictions = new LongAdder();
    final LongAdder ssdVerifiedReads = new LongAdder();
    final LongAdder ssdZeroCopyReads = new LongAdder();
    final LongAdder ssdScrubbedBlocks = new LongAdder();
    final LongAdder ssdCorruptBlocks = new LongAdder();
    final LongAdder ssdLengthMismatches = new LongAdder();
    final LongAdder ssdTornWritesDiscarded = new LongAdder();
    final LongAdder ssdFormatWipes = new LongAdder();
    final AtomicLong ramBytes = new AtomicLong();
    final AtomicLong ramBlocks = new AtomicLong();
    final AtomicLong ssdBytes = new AtomicLong();
    final AtomicLong ssdBlocks = new AtomicLong();

    /**
     * Reads the block lookup counts from the engine over this store (once, after the engine is built).
     *
     * @param metrics the engine's counters.
     */
    public void countLookupsOf(final RangeMetrics metrics)
    {
        this.engine = metrics;
    }

    /**
     * Block lookups answered from RAM: the engine's hits that were neither sent from a file nor loaded.
     *
     * @return the count, 0 before an engine is bound.
     */
    public long ramHits()
    {
        final Map<String, Long> counts = lookups();
        return counts.getOrDefault(MetricNames.BLOCK_HITS, 0L) - counts.getOrDefault(MetricNames.BLOCK_FILE_HITS, 0L) -
            counts.getOrDefault(MetricNames.BLOCK_LOADED_HITS, 0L);
    }

    /**
     * Block lookups answered from SSD: sent from the verified file, or read, CRC-checked and promoted.
     *
     * @return the count, 0 before an engine is bound.
     */
    public long ssdHits()
    {
        final Map<String, Long> counts = lookups();
        return counts.getOrDefault(MetricNames.BLOCK_FILE_HITS, 0L) +
            counts.getOrDefault(MetricNames.BLOCK_LOADED_HITS, 0L);
    }

    /**
     * SSD blocks read back and CRC-checked (each block once per tier lifetime unless it is also promoted again).
     *
     * @return the count.
     */
    public long ssdVerifiedReads()
    {
        return ssdVerifiedReads.sum();
    }

    /**
     * SSD blocks re-checked by the background scrub.
     *
     * @return the count.
     */
    public long ssdScrubbedBlocks()
    {
        return ssdScrubbedBlocks.sum();
    }

    /**
     * Verified SSD blocks opened to be sent straight from their files.
     *
     * @return the count.
     */
    public long ssdZeroCopyReads()
    {
        return ssdZeroCopyReads.sum();
    }

    /**
     * Block lookups that found nothing usable.
     *
     * @return the count, 0 before an engine is bound.
     */
    public long misses()
    {
        return lookups().getOrDefault(MetricNames.BLOCK_MISSES, 0L);
    }

    private Map<String, Long> lookups()
    {
        final RangeMetrics metrics = engine;
        return null == metrics ? Map.of() : metrics.snapshot();
    }

    /**
     * SSD blocks that failed verification (CRC, length, I/O) or had damaged headers, and were dropped.
     *
     * @return the count.
     */
    public long ssdCorruptBlocks()
    {
        return ssdCorruptBlocks.sum();
    }

    /**
     * Tier wipes and block files discarded because of an unknown on-disk format version.
     *
     * @return the count.
     */
    public long ssdFormatWipes()
    {
        return ssdFormatWipes.sum();
    }

    /**
     * Block files published on SSD.
     *
     * @return the count.
     */
    public long ssdWrites()
    {
        return ssdWrites.sum();
    }

    /**
     * Temporary files of interrupted writes deleted at start.
     *
     * @return the count.
     */
    public long ssdTornWritesDiscarded()
    {
        return ssdTornWritesDiscarded.sum();
    }

    /**
     * Blocks evicted from RAM.
     *
     * @return the count.
     */
    public long ramEvictions()
    {
        return ramEvictions.sum();
    }

    /**
     * Adds every counter and gauge to one scrape.
     *
     * @param out the scrape's families.
     */
    public void collectInto(final MetricFamilies out)
    {
        final String lookups = "Block lookups by outcome, one per block a read touches.";
        out.counter("offcache_server_block_lookups_total", lookups, ramHits(), "result", "ram_hit")
            .counter("offcache_server_block_lookups_total", lookups, ssdHits(), "result", "ssd_hit")
            .counter("offcache_server_block_lookups_total", lookups, misses(), "result", "miss")
            .counter("offcache_server_ram_evictions_total", "Blocks evicted from the RAM tier.", ramEvictions.sum())
            .counter("offcache_server_ram_promotions_total", "SSD hits promoted to the RAM tier.",
                ramPromotions.sum())
            .counter("offcache_server_puts_declined_total", "Blocks the store declined (no free slot).",
                putsDeclined.sum())
            .counter("offcache_server_ssd_spills_total", "RAM evictions queued for the SSD tier.", spillsQueued.sum())
            .counter("offcache_server_ssd_spills_dropped_total", "RAM evictions dropped: spill queue full.",
                spillsDropped.sum())
            .counter("offcache_server_ssd_writes_total", "Block files published.", ssdWrites.sum())
            .counter("offcache_server_ssd_write_failures_total", "Block writes that failed.", ssdWriteFailures.sum())
            .counter("offcache_server_ssd_stale_writes_dropped_total",
                "Block files not published: their object version was overwritten while they were written.",
                ssdStaleWritesDropped.sum())
            .counter("offcache_server_ssd_evictions_total", "Block files evicted for capacity.", ssdEvictions.sum())
            .counter("offcache_server_ssd_verified_reads_total", "SSD reads whose CRC32C checked out.",
                ssdVerifiedReads.sum())
            .counter("offcache_server_ssd_zero_copy_reads_total",
                "Verified SSD blocks sent straight from their files (sendfile).", ssdZeroCopyReads.sum())
            .counter("offcache_server_ssd_scrubbed_blocks_total",
                "SSD blocks re-read and CRC-checked by the background scrub.", ssdScrubbedBlocks.sum())
            .counter("offcache_server_ssd_corrupt_blocks_total", "SSD blocks dropped: failed verification.",
                ssdCorruptBlocks.sum())
            .counter("offcache_server_ssd_length_mismatches_total", "SSD blocks not promoted: wrong length.",
                ssdLengthMismatches.sum())
            .counter("offcache_server_ssd_torn_writes_discarded_total", "Temp files of interrupted writes deleted.",
                ssdTornWritesDiscarded.sum())
            .counter("offcache_server_ssd_format_wipes_total", "Wipes for an unknown on-disk format version.",
                ssdFormatWipes.sum())
            .gauge("offcache_server_tier_bytes", "Bytes held per tier.", ramBytes.get(), "tier", "ram")
            .gauge("offcache_server_tier_bytes", "Bytes held per tier.", ssdBytes.get(), "tier", "ssd")
            .gauge("offcache_server_tier_blocks", "Blocks held per tier.", ramBlocks.get(), "tier", "ram")
            .gauge("offcache_server_tier_blocks", "Blocks held per tier.", ssdBlocks.get(), "tier", "ssd");
    }
}
