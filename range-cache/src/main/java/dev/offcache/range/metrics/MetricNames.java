package dev.offcache.range.metrics;

/**
 * The names of the range cache's metrics ({@code offcache_range_<what>_<unit>}), as published in the counters
 * file and the Prometheus text.
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
    /** Store failures routed around (the read went to the next tier instead). */
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
    /** Origin GET latency summary (seconds), from an HdrHistogram. */
    public static final String ORIGIN_GET_SECONDS = "offcache_range_origin_get_seconds";
    /** Tag suffix for demand. */
    public static final String DEMAND = "{class=\"demand\"}";
    /** Tag suffix for prefetch. */
    public static final String PREFETCH = "{class=\"prefetch\"}";

    private MetricNames()
    {
    }
}
