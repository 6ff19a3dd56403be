package dev.offcache.benchmarks.spark;

import java.util.Arrays;
import java.util.Locale;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;

import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.LogicalRDD;
import org.apache.spark.storage.StorageLevel;

import dev.offcache.spark.OffcacheDatasets;
import dev.offcache.spark.OffcachePlugin;

/**
 * The ways a Spark user can keep a DataFrame between actions, each one line: how the cached frame is made from its
 * input (lazily: nothing runs until an action), how it is let go, and the session settings it needs. The JMH
 * parameter {@code impl} names one; {@code offcache} is ours, every other a baseline (the report's pairing rule).
 */
enum CacheVariant
{
    /** offcache: {@code OffcacheDatasets.cache(df)}, pinned output on the executors, the registry on the driver. */
    OFFCACHE("offcache", OffcacheDatasets::cache, OffcacheDatasets::uncache,
        b -> b.config("spark.plugins", OffcachePlugin.class.getName())),
    /** No cache: every action recomputes the input. */
    NONE("none", df -> df, CacheVariant::nothing, CacheVariant::nothing),
    /** {@code df.cache()}: {@code MEMORY_AND_DISK}, Spark's columnar batches on the executor heap. */
    CACHE("cache", Dataset::cache, CacheVariant::unpersist, CacheVariant::nothing),
    /** {@code persist(DISK_ONLY)}: the same batches serialized to the executor's local disk. */
    DISK_ONLY("disk-only", df -> df.persist(StorageLevel.DISK_ONLY()), CacheVariant::unpersist,
        CacheVariant::nothing),
    /** {@code persist(OFF_HEAP)} with {@code spark.memory.offHeap.enabled} (1 GiB), as Spark requires for it. */
    OFF_HEAP("off-heap", df -> df.persist(StorageLevel.OFF_HEAP()), CacheVariant::unpersist,
        b -> b.config("spark.memory.offHeap.enabled", "true").config("spark.memory.offHeap.size", "1g")),
    /** {@code localCheckpoint(false)}: lineage truncated, blocks kept by the executors' block managers. */
    LOCAL_CHECKPOINT("local-checkpoint", df -> df.localCheckpoint(false), CacheVariant::releaseCheckpoint,
        CacheVariant::nothing);

    private final String id;
    private final UnaryOperator<Dataset<Row>> cache;
    private final Consumer<Dataset<Row>> release;
    private final Consumer<SparkSession.Builder> settings;

    CacheVariant(
        final String id,
        final UnaryOperator<Dataset<Row>> cache,
        final Consumer<Dataset<Row>> release,
        final Consumer<SparkSession.Builder> settings)
    {
        this.id = id;
        this.cache = cache;
        this.release = release;
        this.settings = settings;
    }

    /**
     * The variant a JMH {@code impl} value names.
     *
     * @param id the value, e.g. {@code disk-only}.
     * @return the variant.
     */
    static CacheVariant of(final String id)
    {
        for (final CacheVariant v : values())
        {
            if (v.id.equals(id.toLowerCase(Locale.ROOT)))
            {
                return v;
            }
        }
        throw new IllegalArgumentException("unknown impl " + id + " (one of " +
            Arrays.stream(values()).map((v) -> v.id).collect(Collectors.joining(", ")) + ")");
    }

    /**
     * Adds the session settings this variant needs.
     *
     * @param builder the session builder.
     * @return the builder.
     */
    SparkSession.Builder configure(final SparkSession.Builder builder)
    {
        settings.accept(builder);
        return builder;
    }

    /**
     * The cached frame over {@code input}; lazy.
     *
     * @param input the frame to keep.
     * @return the frame later actions use.
     */
    Dataset<Row> cache(final Dataset<Row> input)
    {
        return cache.apply(input);
    }

    /**
     * Drops what {@link #cache} kept, blocking until it is gone.
     *
     * @param cached a frame {@link #cache} returned.
     */
    void release(final Dataset<Row> cached)
    {
        release.accept(cached);
    }

    private static void nothing(final Object ignored)
    {
    }

    private static void unpersist(final Dataset<Row> df)
    {
        df.unpersist(true);
    }

    private static void releaseCheckpoint(final Dataset<Row> df)
    {
        // A checkpointed frame's plan is a LogicalRDD over the checkpointed RDD; CacheManager does not know it.
        if (df.queryExecution().analyzed() instanceof LogicalRDD)
        {
            ((LogicalRDD) df.queryExecution().analyzed()).rdd().unpersist(true);
        }
    }

    @Override
    public String toString()
    {
        return id;
    }
}
