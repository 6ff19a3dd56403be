package dev.offcache.benchmarks.spark;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.util.LongAccumulator;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.length;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.max;
import static org.apache.spark.sql.functions.sum;

/**
 * The benchmark's input and its three queries. The input is generated per partition (nothing read from disk), with
 * a long, an int join key, a nullable string, a decimal and a nested struct; each computation of a partition adds 1
 * to an accumulator, so a run counts how often the input was computed (a materialization computes every partition
 * once). Every sum is exact (integers, decimals and doubles of halves), so a result does not depend on the order
 * partitions finish in and each action's result can be compared with the uncached one.
 */
final class BenchData
{
    /** Keys of the join's dimension table; the input's {@code key} is a hash of {@code id} modulo this. */
    static final int KEYS = 1000;
    /** The selective filter's key: about 1 row in {@link #KEYS}. */
    static final int FILTER_KEY = 42;

    static final StructType SCHEMA = new StructType()
        .add("id", DataTypes.LongType, false)
        .add("key", DataTypes.IntegerType, false)
        .add("name", DataTypes.StringType, true)
        .add("amount", DataTypes.createDecimalType(18, 2), false)
        .add("point", new StructType()
            .add("x", DataTypes.DoubleType, false)
            .add("y", DataTypes.DoubleType, false), false);

    private BenchData()
    {
    }

    /**
     * The input: {@code rows} rows in {@code partitions} partitions.
     *
     * @param spark the session.
     * @param rows the row count.
     * @param partitions the partition count.
     * @param computed incremented once per partition computed.
     * @return the input frame.
     */
    static Dataset<Row> input(
        final SparkSession spark, final long rows, final int partitions, final LongAccumulator computed)
    {
        final List<Integer> ids = IntStream.range(0, partitions).boxed().collect(Collectors.toList());
        final JavaRDD<Row> rdd = JavaSparkContext.fromSparkContext(spark.sparkContext())
            .parallelize(ids, partitions)
            .flatMap(p ->
            {
                computed.add(1);
                return new PartitionRows(rows * p / partitions, rows * (p + 1) / partitions);
            });
        return spark.createDataFrame(rdd, SCHEMA);
    }

    /**
     * The join's small side: every key with one of 10 groups.
     *
     * @param spark the session.
     * @return the dimension frame.
     */
    static Dataset<Row> dimension(final SparkSession spark)
    {
        final List<Row> rows = new ArrayList<>(KEYS);
        for (int k = 0; k < KEYS; k++)
        {
            rows.add(RowFactory.create(k, "group-" + (k % 10)));
        }
        return spark.createDataFrame(rows, new StructType()
            .add("key", DataTypes.IntegerType, false)
            .add("grp", DataTypes.StringType, false));
    }

    /**
     * A full-row aggregate: every column of every row is read.
     *
     * @param df the frame.
     * @return one row: rows, non-null names, sum of name lengths, sum of amounts, sum of x, max id, sum of keys.
     */
    static List<Row> aggregate(final Dataset<Row> df)
    {
        return df.agg(
            count(lit(1)), count(col("name")), sum(length(col("name"))), sum(col("amount")),
            sum(col("point.x")), max(col("id")), sum(col("key")))
            .collectAsList();
    }

    /**
     * A selective filter (about 0.1% of the rows) on a column whose values are spread over every partition.
     *
     * @param df the frame.
     * @return one row: matching rows, sum of their ids, sum of their amounts.
     */
    static List<Row> filter(final Dataset<Row> df)
    {
        return df.where(col("key").equalTo(FILTER_KEY))
            .agg(count(lit(1)), sum(col("id")), sum(col("amount")))
            .collectAsList();
    }

    /**
     * A join of the frame with the small dimension table (Spark broadcasts it), grouped by the dimension's group.
     *
     * @param df the frame.
     * @param dimension {@link #dimension}.
     * @return one row per group, sorted: group, rows, sum of amounts.
     */
    static List<Row> join(final Dataset<Row> df, final Dataset<Row> dimension)
    {
        return df.join(dimension, "key")
            .groupBy(col("grp"))
            .agg(count(lit(1)), sum(col("amount")))
            .orderBy(col("grp"))
            .collectAsList();
    }

    /**
     * Fails unless an action returned what the uncached input gives.
     *
     * @param what the query's name.
     * @param expected the uncached result.
     * @param actual the action's result.
     * @return {@code actual}.
     */
    static List<Row> check(final String what, final List<Row> expected, final List<Row> actual)
    {
        if (!expected.equals(actual))
        {
            throw new IllegalStateException(what + ": expected " + expected + " but got " + actual);
        }
        return actual;
    }

    /** The rows of one partition, made as they are consumed (nothing held on the heap). */
    private static final class PartitionRows implements Iterator<Row>
    {
        private final long end;
        private long next;

        PartitionRows(final long start, final long end)
        {
            this.next = start;
            this.end = end;
        }

        @Override
        public boolean hasNext()
        {
            return next < end;
        }

        @Override
        public Row next()
        {
            if (next >= end)
            {
                throw new NoSuchElementException();
            }
            final long id = next++;
            return RowFactory.create(
                id,
                (int) Math.floorMod(id * 2654435761L, (long) KEYS),
                id % 10 == 0 ? null : "name-" + id,
                BigDecimal.valueOf(id % 100_000, 2),
                RowFactory.create(id * 0.5, -(double) id));
        }
    }
}
