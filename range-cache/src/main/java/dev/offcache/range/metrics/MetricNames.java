package dev.offcache.range.metrics;

import java.util.Map;

/**
 * The names of the range cache's metrics ({@code offcache_range_<what>_<unit>}), as published in the counters
 * file and the Prometheus text, and one help line per family. Block lookups are counted here, by the engine, once
 * each and with the tier that answered; a store counts only its own events ({@code offcache_range_l1_*}).
 */
public final class MetricNames
{
    /** Store lookups, one per block a read touches. */
    public static final String BLOCK_REQUESTS = "offcache_range_block_requests_total";
    /** Lookups the store answered. */
    public static final String BLOCK_HITS = "offcache_range_block_hits_total";
    /** Of the hits, blocks handed out as a file region of a slower tier (sent from the file, not read). */
    public static final String BLOCK_FILE_HITS = "offcache_range_block_file_hits_total";
    /** Of the hits, blocks loaded from a slower tier into memory first (read and checked on the store's threads). */
    public static final String BLOCK_LOADED_HITS = "offcache_range_block_loaded_hits_total";
    /** Bytes handed to readers from the store (L1 in an engine's JVM; RAM or SSD in the L2 server). */
    public static final String STORE_BYTES = "offcache_range_store_bytes_total";
    /** Lookups the store could not answer (bypassed reads count here too). */
    public static final String BLOCK_MISSES = "offcache_range_block_misses_total";
    /** Origin GETs, tagged by class. */
    public static final String ORIGIN_GETS = "offcache_range_origin_gets_total";
    /** Origin bytes received, tagged by class. */
    public static final String ORIGIN_BYTES = "offcache_range_origin_bytes_total";
    /** Object-size requests (HEAD) sent to the origin. */
    public static final String ORIGIN_HEADS = "offcache_range_origin_heads_total";
    /** Origin requests that failed: errors, short data, timeouts. */
    public static final String ORIGIN_ERRORS = "offcache_range_origin_errors_total";
    /** Blocks fetched by GETs that carried more than one block. */
    public static final String COALESCED_BLOCKS = "offcache_range_coalesced_blocks_total";
    /** Block reads that joined a fetch already in flight instead of fetching. */
    public static final String SINGLE_FLIGHT_JOINS = "offcache_range_singleflight_joins_total";
    /** Prefetch runs promoted to demand because a demand read joined them. */
    public static final String PROMOTIONS = "offcache_range_promotions_total";
    /** Blocks the store evicted (from the store's own count). */
    public static final String EVICTIONS = "offcache_range_evictions_total";
    /** Store failures routed around (the read went to the next level instead). */
    public static final String FALLBACKS = "offcache_range_fallbacks_total";
    /** Origin GETs that queued for a fetch permit. */
    public static final String PERMIT_WAITS = "offcache_range_permit_waits_total";
    /** Reads that skipped the store (bypass prefix, per-read flag). */
    public static final String BYPASS_READS = "offcache_range_bypass_reads_total";
    /** Fetched blocks the store kept. */
    public static final String STORE_PUTS = "offcache_range_store_puts_total";
    /** Fetched blocks the store declined (admission, no free slot). */
    public static final String STORE_DECLINES = "offcache_range_store_declines_total";
    /** Origin GETs running now. */
    public static final String FETCHES_IN_FLIGHT = "offcache_range_fetches_in_flight";
    /** Origin GET latency (seconds), from an HdrHistogram. */
    public static final String ORIGIN_GET_SECONDS = "offcache_range_origin_get_seconds";
    /** The label that tells demand from prefetch GETs. */
    public static final String CLASS = "class";
    /** Its value for demand. */
    public static final String DEMAND_CLASS = "demand";
    /** Its value for prefetch. */
    public static final String PREFETCH_CLASS = "prefetch";
    /** Tag suffix for demand, as in the counters file. */
    public static final String DEMAND = "{class=\"demand\"}";
    /** Tag suffix for prefetch, as in the counters file. */
    public static final String PREFETCH = "{class=\"prefetch\"}";

    /** L1 (the store in an engine's JVM): blocks it stored. */
    public static final String L1_PUTS = "offcache_range_l1_puts_total";
    /** L1: puts it declined (prefetch not admitted, or every slot pinned). */
    public static final String L1_REJECTIONS = "offcache_range_l1_rejections_total";
    /** L1: copies discarded because their block was evicted during the copy (redone under a reference). */
    public static final String L1_COPY_CONFLICTS = "offcache_range_l1_copy_conflicts_total";
    /** L1: bytes of block data held. */
    public static final String L1_SIZE_BYTES = "offcache_range_l1_size_bytes";
    /** L1: blocks held. */
    public static final String L1_RESIDENT_BLOCKS = "offcache_range_l1_resident_blocks";
    /** L1: blocks it can hold (capacity / block size). */
    public static final String L1_CAPACITY_BLOCKS = "offcache_range_l1_capacity_blocks";

    /** One line of help per family, for the exposition's {@code # HELP}. */
    private static final Map<String, String> HELP = Map.ofEntries(
        Map.entry(BLOCK_REQUESTS, "Store lookups, one per block a read touches."),
        Map.entry(BLOCK_HITS, "Block lookups the store answered."),
        Map.entry(BLOCK_FILE_HITS, "Of the hits, blocks handed out as a file region of a slower tier."),
        Map.entry(BLOCK_LOADED_HITS, "Of the hits, blocks loaded from a slower tier into memory first."),
        Map.entry(STORE_BYTES, "Bytes handed to readers from the store (L1 in an engine, RAM or SSD in the server)."),
        Map.entry(BLOCK_MISSES, "Block lookups the store could not answer (bypassed reads count here too)."),
        Map.entry(ORIGIN_GETS, "Origin GETs by fetch class."),
        Map.entry(ORIGIN_BYTES, "Origin bytes received by fetch class."),
        Map.entry(ORIGIN_HEADS, "Object-size requests (HEAD) sent to the origin."),
        Map.entry(ORIGIN_ERRORS, "Origin requests that failed: errors, short data, timeouts."),
        Map.entry(COALESCED_BLOCKS, "Blocks fetched by origin GETs that carried more than one block."),
        Map.entry(SINGLE_FLIGHT_JOINS, "Block reads that joined a fetch already in flight instead of fetching."),
        Map.entry(PROMOTIONS, "Prefetch runs promoted to demand because a demand read joined them."),
        Map.entry(EVICTIONS, "Blocks the store evicted."),
        Map.entry(FALLBACKS, "Store failures routed around (the read went to the next level)."),
        Map.entry(PERMIT_WAITS, "Origin GETs that queued for a fetch permit."),
        Map.entry(BYPASS_READS, "Reads that skipped the store (bypass prefix, per-read flag)."),
        Map.entry(STORE_PUTS, "Fetched blocks the store kept."),
        Map.entry(STORE_DECLINES, "Fetched blocks the store declined (admission, no free slot)."),
        Map.entry(FETCHES_IN_FLIGHT, "Origin GETs running now."),
        Map.entry(ORIGIN_GET_SECONDS, "Origin GET latency, from start to the last byte."),
        Map.entry(L1_PUTS, "Blocks the RAM block store kept."),
        Map.entry(L1_REJECTIONS, "Puts the RAM block store declined (prefetch not admitted, or every slot pinned)."),
        Map.entry(L1_COPY_CONFLICTS, "L1 copies discarded because their block was evicted during the copy."),
        Map.entry(L1_SIZE_BYTES, "Bytes of block data the RAM block store holds."),
        Map.entry(L1_RESIDENT_BLOCKS, "Blocks the RAM block store holds."),
        Map.entry(L1_CAPACITY_BLOCKS, "Blocks the RAM block store can hold (capacity / block size)."));

    private MetricNames()
    {
    }

    /**
     * A counter's full name as the counters file labels it: the family, then its labels in braces.
     *
     * @param family the family's name.
     * @param labels label names and values, alternating (values hold no quotes or backslashes).
     * @return for example {@code offcache_range_origin_gets_total{class="demand"}}.
     */
    public static String labelled(final String family, final String... labels)
    {
        if (labels.length == 0)
        {
            return family;
        }
        final StringBuilder name = new StringBuilder(family).append('{');
        for (int i = 0; i < labels.length; i += 2)
        {
            name.append(i == 0 ? "" : ",").append(labels[i]).append("=\"").append(labels[i + 1]).append('"');
        }
        return name.append('}').toString();
    }

    /**
     * The help line of a family.
     *
     * @param family a family name without labels, such as {@link #ORIGIN_GETS}.
     * @return its help.
     * @throws IllegalArgumentException for a name that is not one of these families.
     */
    public static String help(final String family)
    {
        final String help = HELP.get(family);
        if (null == help)
        {
            throw new IllegalArgumentException("not a range-cache metric family: " + family);
        }
        return help;
    }
}
