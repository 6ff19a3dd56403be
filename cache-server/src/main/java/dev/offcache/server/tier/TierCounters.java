package dev.offcache.server.tier;

import java.util.Map;

import dev.offcache.core.counters.CounterTypes;
import dev.offcache.range.metrics.CountersRegion;
import dev.offcache.range.metrics.MetricNames;
import dev.offcache.range.metrics.RangeMetrics;
import dev.offcache.range.metrics.MetricFamilies;
import org.agrona.concurrent.status.AtomicCounter;

/**
 * Counters and gauges of the tiered store, shared by its tiers and rendered on {@code /metrics}: Agrona counters in
 * a {@link CountersRegion} (readable from outside the process when the region is a file, type id
 * {@link CounterTypes#L2_SERVER}), one atomic add or store per update. Counters only grow; gauges are the current
 * value.
 *
 * <p>Block lookups are counted once each by the engine that owns the store (it knows which lookups belong to one
 * read), so the lookup counters here are read from the engine's: bind it with {@link #countLookupsOf}.
 *
 * <p>Memory: {@link #TierCounters()} owns a private region that {@link #close()} frees;
 * {@link #TierCounters(CountersRegion)} uses its owner's. Updates are not guarded against the release: the region
 * is freed after the store (whose threads are the writers) has closed.
 */
public final class TierCounters implements AutoCloseable
{
    /** Counters this needs in a region: one per {@link Counter}. */
    public static final int COUNTERS = Counter.values().length;

    /** Every counter and gauge with its label: {@link #COUNTERS} is their number, never counted by hand. */
    private enum Counter
    {
        RAM_EVICTIONS("offcache_server_ram_evictions_total"),
        RAM_PROMOTIONS("offcache_server_ram_promotions_total"),
        PUTS_DECLINED("offcache_server_puts_declined_total"),
        SPILLS_QUEUED("offcache_server_ssd_spills_total"),
        SPILLS_DROPPED("offcache_server_ssd_spills_dropped_total"),
        SSD_WRITES("offcache_server_ssd_writes_total"),
        SSD_WRITE_FAILURES("offcache_server_ssd_write_failures_total"),
        SSD_STALE_WRITES_DROPPED("offcache_server_ssd_stale_writes_dropped_total"),
        SSD_EVICTIONS("offcache_server_ssd_evictions_total"),
        SSD_VERIFIED_READS("offcache_server_ssd_verified_reads_total"),
        SSD_ZERO_COPY_READS("offcache_server_ssd_zero_copy_reads_total"),
        SSD_SCRUBBED_BLOCKS("offcache_server_ssd_scrubbed_blocks_total"),
        SSD_CORRUPT_BLOCKS("offcache_server_ssd_corrupt_blocks_total"),
        SSD_CHUNK_MISMATCHES("offcache_server_ssd_chunk_mismatches_total"),
        RAM_CORRUPT_BLOCKS("offcache_server_ram_corrupt_blocks_total"),
        SSD_LENGTH_MISMATCHES("offcache_server_ssd_length_mismatches_total"),
        SSD_TORN_WRITES_DISCARDED("offcache_server_ssd_torn_writes_discarded_total"),
        SSD_FORMAT_WIPES("offcache_server_ssd_format_wipes_total"),
        RAM_BYTES(MetricNames.labelled("offcache_server_tier_bytes", "tier", "ram")),
        RAM_BLOCKS(MetricNames.labelled("offcache_server_tier_blocks", "tier", "ram")),
        SSD_BYTES(MetricNames.labelled("offcache_server_tier_bytes", "tier", "ssd")),
        SSD_BLOCKS(MetricNames.labelled("offcache_server_tier_blocks", "tier", "ssd"));

        private final String label;

        Counter(final String label)
        {
            this.label = label;
        }
    }

    private final CountersRegion region;
    private final boolean ownsRegion;
    private volatile RangeMetrics engine;
    final AtomicCounter ramEvictions;
    final AtomicCounter ramPromotions;
    final AtomicCounter putsDeclined;
    final AtomicCounter spillsQueued;
    final AtomicCounter spillsDropped;
    final AtomicCounter ssdWrites;
    final AtomicCounter ssdWriteFailures;
    final AtomicCounter ssdStaleWritesDropped;
    final AtomicCounter ssdEvictions;
    final AtomicCounter ssdVerifiedReads;
    final AtomicCounter ssdZeroCopyReads;
    final AtomicCounter ssdScrubbedBlocks;
    final AtomicCounter ssdCorruptBlocks;
    final AtomicCounter ssdChunkMismatches;
    final AtomicCounter ramCorruptBlocks;
    final AtomicCounter ssdLengthMismatches;
    final AtomicCounter ssdTornWritesDiscarded;
    final AtomicCounter ssdFormatWipes;
    final AtomicCounter ramBytes;
    final AtomicCounter ramBlocks;
    final AtomicCounter ssdBytes;
    final AtomicCounter ssdBlocks;

    /**
     * Counters in a private direct buffer this object owns (freed by {@link #close()}).
     */
    public TierCounters()
    {
        this(CountersRegion.open(null, CounterTypes.L2_SERVER, COUNTERS), true);
    }

    /**
     * Counters in a region its owner frees after the store has closed; it needs room for {@link #COUNTERS} more.
     *
     * @param region the region.
     */
    public TierCounters(final CountersRegion region)
    {
        this(region, false);
    }

    private TierCounters(final CountersRegion region, final boolean ownsRegion)
    {
        this.region = region;
        this.ownsRegion = ownsRegion;
ramEvictions = region.newCounter(Counter.RAM_EVICTIONS.label);
        ramPromotions = region.newCounter(Counter.RAM_PROMOTIONS.label);
        putsDeclined = region.newCounter(Counter.PUTS_DECLINED.label);
        spillsQueued = region.newCounter(Counter.SPILLS_QUEUED.label);
        spillsDropped = region.newCounter(Counter.SPILLS_DROPPED.label);
        ssdWrites = region.newCounter(Counter.SSD_WRITES.label);
        ssdWriteFailures = region.newCounter(Counter.SSD_WRITE_FAILURES.label);
        ssdStaleWritesDropped = region.newCounter(Counter.SSD_STALE_WRITES_DROPPED.label);
        ssdEvictions = region.newCounter(Counter.SSD_EVICTIONS.label);
        ssdVerifiedReads = region.newCounter(Counter.SSD_VERIFIED_READS.label);
        ssdZeroCopyReads = region.newCounter(Counter.SSD_ZERO_COPY_READS.label);
        ssdScrubbedBlocks = region.newCounter(Counter.SSD_SCRUBBED_BLOCKS.label);
        ssdCorruptBlocks = region.newCounter(Counter.SSD_CORRUPT_BLOCKS.label);
        ssdChunkMismatches = region.newCounter(Counter.SSD_CHUNK_MISMATCHES.label);
        ramCorruptBlocks = region.newCounter(Counter.RAM_CORRUPT_BLOCKS.label);
        ssdLengthMismatches = region.newCounter(Counter.SSD_LENGTH_MISMATCHES.label);
        ssdTornWritesDiscarded = region.newCounter(Counter.SSD_TORN_WRITES_DISCARDED.label);
        ssdFormatWipes = region.newCounter(Counter.SSD_FORMAT_WIPES.label);
        ramBytes = region.newCounter(Counter.RAM_BYTES.label);
        ramBlocks = region.newCounter(Counter.RAM_BLOCKS.label);
        ssdBytes = region.newCounter(Counter.SSD_BYTES.label);
        ssdBlocks = region.newCounter(Counter.SSD_BLOCKS.label);
    }

    private long read(final AtomicCounter counter)
    {
        return region.value(counter);
    }

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
        return read(ssdVerifiedReads);
    }

    /**
     * SSD blocks re-checked by the background scrub.
     *
     * @return the count.
     */
    public long ssdScrubbedBlocks()
    {
        return read(ssdScrubbedBlocks);
    }

    /**
     * Verified SSD blocks opened to be sent straight from their files.
     *
     * @return the count.
     */
    public long ssdZeroCopyReads()
    {
        return read(ssdZeroCopyReads);
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
        return read(ssdCorruptBlocks);
    }

    /**
     * Reads of a part of an SSD block whose chunks failed their recorded CRC32C (the block was dropped; also counted
     * in {@link #ssdCorruptBlocks()}).
     *
     * @return the count.
     */
    public long ssdChunkMismatches()
    {
        return read(ssdChunkMismatches);
    }

    /**
     * RAM blocks whose bytes no longer matched the CRC32C taken when they were filled, found when they were spilled or
     * a part of them was sent: dropped.
     *
     * @return the count.
     */
    public long ramCorruptBlocks()
    {
        return read(ramCorruptBlocks);
    }

    /**
     * Tier wipes and block files discarded because of an unknown on-disk format version.
     *
     * @return the count.
     */
    public long ssdFormatWipes()
    {
        return read(ssdFormatWipes);
    }

    /**
     * Block files published on SSD.
     *
     * @return the count.
     */
    public long ssdWrites()
    {
        return read(ssdWrites);
    }

    /**
     * Temporary files of interrupted writes deleted at start.
     *
     * @return the count.
     */
    public long ssdTornWritesDiscarded()
    {
        return read(ssdTornWritesDiscarded);
    }

    /**
     * Blocks resident in RAM (after the region's release, the count it had then).
     *
     * @return the gauge's value.
     */
    public long ramBlocks()
    {
        return read(ramBlocks);
    }

    /**
     * Blocks evicted from RAM.
     *
     * @return the count.
     */
    public long ramEvictions()
    {
        return read(ramEvictions);
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
            .counter("offcache_server_ram_evictions_total", "Blocks evicted from the RAM tier.", read(ramEvictions))
            .counter("offcache_server_ram_promotions_total", "SSD hits promoted to the RAM tier.",
                read(ramPromotions))
            .counter("offcache_server_puts_declined_total", "Blocks the store declined (no free slot).",
                read(putsDeclined))
            .counter("offcache_server_ssd_spills_total", "RAM evictions queued for the SSD tier.", read(spillsQueued))
            .counter("offcache_server_ssd_spills_dropped_total", "RAM evictions dropped: spill queue full.",
                read(spillsDropped))
            .counter("offcache_server_ssd_writes_total", "Block files published.", read(ssdWrites))
            .counter("offcache_server_ssd_write_failures_total", "Block writes that failed.", read(ssdWriteFailures))
            .counter("offcache_server_ssd_stale_writes_dropped_total",
                "Block files not published: their object version was overwritten while they were written.",
                read(ssdStaleWritesDropped))
            .counter("offcache_server_ssd_evictions_total", "Block files evicted for capacity.", read(ssdEvictions))
            .counter("offcache_server_ssd_verified_reads_total", "SSD reads whose CRC32C checked out.",
                read(ssdVerifiedReads))
            .counter("offcache_server_ssd_zero_copy_reads_total",
                "Verified SSD blocks sent straight from their files (sendfile).", read(ssdZeroCopyReads))
            .counter("offcache_server_ssd_scrubbed_blocks_total",
                "SSD blocks re-read and CRC-checked by the background scrub.", read(ssdScrubbedBlocks))
            .counter("offcache_server_ssd_corrupt_blocks_total", "SSD blocks dropped: failed verification.",
                read(ssdCorruptBlocks))
            .counter("offcache_server_ssd_chunk_mismatches_total",
                "Reads of a part of an SSD block that found a chunk failing its recorded CRC32C (the block dropped).",
                read(ssdChunkMismatches))
            .counter("offcache_server_ram_corrupt_blocks_total",
                "RAM blocks whose bytes no longer matched the CRC32C of their fill (dropped, not spilled or sent).",
                read(ramCorruptBlocks))
            .counter("offcache_server_ssd_length_mismatches_total", "SSD blocks not promoted: wrong length.",
                read(ssdLengthMismatches))
            .counter("offcache_server_ssd_torn_writes_discarded_total", "Temp files of interrupted writes deleted.",
                read(ssdTornWritesDiscarded))
            .counter("offcache_server_ssd_format_wipes_total", "Wipes for an unknown on-disk format version.",
                read(ssdFormatWipes))
            .gauge("offcache_server_tier_bytes", "Bytes held per tier.", read(ramBytes), "tier", "ram")
            .gauge("offcache_server_tier_bytes", "Bytes held per tier.", read(ssdBytes), "tier", "ssd")
            .gauge("offcache_server_tier_blocks", "Blocks held per tier.", read(ramBlocks), "tier", "ram")
            .gauge("offcache_server_tier_blocks", "Blocks held per tier.", read(ssdBlocks), "tier", "ssd");
    }

    /** Frees the region if this object owns it (after it, reads return the final values). */
    @Override
    public void close()
    {
        if (ownsRegion)
        {
            region.close();
        }
    }
}
