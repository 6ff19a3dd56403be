package dev.offcache.range.metrics;

import java.util.Map;

/**
 * A range-cache engine's statistics as a platform MXBean (JConsole, JMX exporters), registered under
 * {@link CacheStatsMXBeans#objectName(String)}; each getter reads a fresh {@link CacheStats}.
 */
public interface RangeCacheMXBean
{
    /**
     * The block lookups the store answered.
     *
     * @return the block lookups the store answered.
     */
    long getHitCount();

    /**
     * The block lookups it could not answer.
     *
     * @return the block lookups it could not answer.
     */
    long getMissCount();

    /**
     * The share of lookups answered, 1.0 when none.
     *
     * @return the the share of lookups answered, 1.0 when none.
     */
    double getHitRate();

    /**
     * The bytes handed to readers from the store.
     *
     * @return the bytes handed to readers from the store.
     */
    long getStoreBytes();

    /**
     * The bytes the next level took from L2 cache servers.
     *
     * @return the bytes the next level took from L2 cache servers.
     */
    long getL2Bytes();

    /**
     * The bytes fetched from the object store itself (origin bytes not served by L2).
     *
     * @return the bytes fetched from the object store itself.
     */
    long getObjectStoreBytes();

    /**
     * The origin GETs.
     *
     * @return the origin GETs.
     */
    long getOriginGetCount();

    /**
     * The bytes received from the origin.
     *
     * @return the bytes received from the origin.
     */
    long getOriginBytes();

    /**
     * The failed origin requests.
     *
     * @return the failed origin requests.
     */
    long getOriginErrorCount();

    /**
     * The blocks evicted.
     *
     * @return the blocks evicted.
     */
    long getEvictionCount();

    /**
     * The store failures routed around, by reason label.
     *
     * @return the store failures routed around, by reason label.
     */
    Map<String, Long> getFallbacks();
}
