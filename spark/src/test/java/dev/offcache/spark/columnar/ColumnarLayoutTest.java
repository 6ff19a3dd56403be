package dev.offcache.spark.columnar;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Random;

import org.agrona.BufferUtil;
import org.agrona.ExpandableDirectByteBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.CatalystTypeConverters;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.catalyst.util.ArrayBasedMapData;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import scala.Function1;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Rows written in the columnar layout read back equal, through Spark's own conversions, for every type the layout
 * has a form for, nulls at every level, several batches, generic and unsafe input rows; damaged or foreign buffers are
 * refused rather than read.
 */
class ColumnarLayoutTest
{
    private static final StructType SCHEMA = new StructType()
        .add("b", DataTypes.BooleanType)
        .add("y", DataTypes.ByteType)
        .add("h", DataTypes.ShortType)
        .add("i", DataTypes.IntegerType)
        .add("l", DataTypes.LongType, false)
        .add("f", DataTypes.FloatType)
        .add("d", DataTypes.DoubleType)
        .add("day", DataTypes.DateType)
        .add("ts", DataTypes.TimestampType)
        .add("small", DataTypes.createDecimalType(18, 2))
        .add("wide", DataTypes.createDecimalType(30, 4))
        .add("s", DataTypes.StringType)
        .add("bin", DataTypes.BinaryType)
        .add("arr", DataTypes.createArrayType(DataTypes.StringType, true))
        .add("map", DataTypes.createMapType(DataTypes.IntegerType, DataTypes.DoubleType, true))
        .add("nested", new StructType()
            .add("a", DataTypes.IntegerType)
            .add("s", DataTypes.StringType)
            .add("c", DataTypes.createArrayType(DataTypes.DoubleType, false)));

    private final ExpandableDirectByteBuffer file = new ExpandableDirectByteBuffer(1 << 16);
    private int length;

    @AfterEach
    void free()
    {
        BufferUtil.free(file.byteBuffer());
    }

    @Test
    void everyTypeReadsBackEqualAcrossBatchesFromGenericAndUnsafeRows()
    {
        for (final long seed : new long[] {1, 2, 3})
        {
            final List<InternalRow> rows = rows(new Random(seed), 2 * ColumnarLayout.BATCH_ROWS + 123);
            assertEquals(external(rows, SCHEMA), read(write(rows.iterator(), SCHEMA), SCHEMA),
                "generic rows, seed " + seed);

            final UnsafeProjection unsafe = UnsafeProjection.create(SCHEMA);
            final Iterator<InternalRow> unsafeRows = rows.stream().map(r -> (InternalRow) unsafe.apply(r)).iterator();
            assertEquals(external(rows, SCHEMA), read(write(unsafeRows, SCHEMA), SCHEMA), "unsafe rows, seed " + seed);
        }
    }

    @Test
    void aBatchHoldsAtMostTheRowLimitAndIsClosedEarlyByBytes()
    {
        final List<InternalRow> rows = rows(new Random(7), ColumnarLayout.BATCH_ROWS + 1);
        assertEquals(List.of(ColumnarLayout.BATCH_ROWS, 1), batchSizes(write(rows.iterator(), SCHEMA), SCHEMA));

        final StructType text = new StructType().add("s", DataTypes.StringType);
        final String big = "x".repeat(256 << 10);
        final List<InternalRow> large = new ArrayList<>();
        for (int i = 0; i < 64; i++)
        {
            large.add(new GenericInternalRow(new Object[] {UTF8String.fromString(i + big)}));
        }
        final List<Integer> sizes = batchSizes(write(large.iterator(), text), text);
        assertTrue(sizes.size() >= 2, "16 MiB of text in batches of about 8 MiB: " + sizes);
        assertEquals(64, sizes.stream().mapToInt(Integer::intValue).sum());
        assertEquals(external(large, text), read(write(large.iterator(), text), text));
    }

    @Test
    void rowsTurnedIntoBatchesInMemoryReadBackEqual()
    {
        final List<InternalRow> rows = rows(new Random(11), ColumnarLayout.BATCH_ROWS * 3 / 2);
        final List<Row> read = new ArrayList<>();
        final Function1<Object, Object> toRow = CatalystTypeConverters.createToScalaConverter(SCHEMA);
        try (RowBatches batches = new RowBatches(rows.iterator(), SCHEMA))
        {
            int count = 0;
            while (batches.hasNext())
            {
                final ColumnarBatch batch = batches.next();
                count++;
                batch.rowIterator().forEachRemaining(r -> read.add((Row) toRow.apply(r)));
            }
            assertEquals(2, count);
        }
        assertEquals(external(rows, SCHEMA), read);
    }

    @Test
    void aSchemaWithATypeWithoutAColumnarFormKeepsTheRowLayout()
    {
        final StructType interval = new StructType().add("id", DataTypes.LongType)
            .add("gap", DataTypes.CalendarIntervalType);
        assertFalse(ColumnarLayout.supports(interval));
        assertFalse(ColumnarLayout.supports(new StructType().add("a",
            DataTypes.createArrayType(DataTypes.CalendarIntervalType))));
        assertTrue(ColumnarLayout.supports(SCHEMA));
        assertThrows(IllegalArgumentException.class, () -> new BatchWriter(interval));
    }

    @Test
    void aForeignOrDamagedPartitionIsRefusedNotRead()
    {
        final UnsafeBuffer rowLayout = new UnsafeBuffer(ByteBuffer.allocateDirect(64));
        rowLayout.putLong(0, 40L); // a row-layout file starts with its first row's length
        assertFalse(ColumnarLayout.isColumnar(rowLayout));
        assertThrows(IllegalStateException.class, () -> new ColumnarBatches(rowLayout, SCHEMA));
        final UnsafeBuffer onHeap = new UnsafeBuffer(new byte[64]);
        onHeap.putLong(0, ColumnarLayout.MAGIC);
        assertThrows(IllegalArgumentException.class, () -> new ColumnarBatches(onHeap, SCHEMA), "read by address");

        final UnsafeBuffer whole = write(rows(new Random(5), 100).iterator(), SCHEMA);
        final UnsafeBuffer truncated = new UnsafeBuffer(whole, 0, whole.capacity() - 8);
        assertThrows(IllegalStateException.class, () -> new ColumnarBatches(truncated, SCHEMA).next());

        // A null count larger than the batch: the first column's count, right after the batch header.
        final UnsafeBuffer damaged = new UnsafeBuffer(whole, 0, whole.capacity());
        damaged.putLong(Long.BYTES + ColumnarLayout.BATCH_HEADER, 1_000_000L);
        assertThrows(IllegalStateException.class, () -> new ColumnarBatches(damaged, SCHEMA).next());
    }

    private UnsafeBuffer write(final Iterator<InternalRow> rows, final StructType schema)
    {
        length = 0;
        final BatchWriter.Sink sink = (buffer, offset, bytes) ->
        {
            file.putBytes(length, buffer, offset, bytes);
            length += bytes;
        };
        try (BatchWriter writer = new BatchWriter(schema))
        {
            writer.start(sink);
            while (rows.hasNext())
            {
                writer.add(rows.next());
                if (writer.isFull())
                {
                    writer.flush(sink);
                }
            }
            writer.flush(sink);
        }
        assertEquals(0, length % 8, "every section padded to 8 bytes");
        return new UnsafeBuffer(file.addressOffset(), length);
    }

    private static List<Row> read(final UnsafeBuffer buffer, final StructType schema)
    {
        final Function1<Object, Object> toRow = CatalystTypeConverters.createToScalaConverter(schema);
        final List<Row> rows = new ArrayList<>();
        final ColumnarBatches batches = new ColumnarBatches(buffer, schema);
        while (batches.hasNext())
        {
            batches.next().rowIterator().forEachRemaining(r -> rows.add((Row) toRow.apply(r)));
        }
        return rows;
    }

    private static List<Integer> batchSizes(final UnsafeBuffer buffer, final StructType schema)
    {
        final List<Integer> sizes = new ArrayList<>();
        final ColumnarBatches batches = new ColumnarBatches(buffer, schema);
        while (batches.hasNext())
        {
            sizes.add(batches.next().numRows());
        }
        return sizes;
    }

    private static List<Row> external(final List<InternalRow> rows, final StructType schema)
    {
        final Function1<Object, Object> toRow = CatalystTypeConverters.createToScalaConverter(schema);
        final List<Row> external = new ArrayList<>();
        for (final InternalRow row : rows)
        {
            external.add((Row) toRow.apply(row));
        }
        return external;
    }

    /** Rows with every column null about one time in five (but {@code l}), nulls inside arrays, maps and structs. */
    private static List<InternalRow> rows(final Random random, final int count)
    {
        final List<InternalRow> rows = new ArrayList<>(count);
        for (int n = 0; n < count; n++)
        {
            final Object[] values = new Object[SCHEMA.fields().length];
            values[0] = random.nextBoolean();
            values[1] = (byte) random.nextInt();
            values[2] = (short) random.nextInt();
            values[3] = random.nextInt();
            values[4] = random.nextLong();
            values[5] = random.nextFloat();
            values[6] = random.nextDouble();
            values[7] = random.nextInt(40_000);
            values[8] = random.nextLong() >> 12;
            values[9] = Decimal.apply(BigDecimal.valueOf(random.nextLong() % 1_000_000_000_000_000L, 2), 18, 2);
            values[10] = Decimal.apply(new BigDecimal(new BigInteger(96, random).negate().add(BigInteger.TEN), 4)
                .remainder(BigDecimal.TEN.pow(25)), 30, 4);
            values[11] = UTF8String.fromString("s" + n + "é".repeat(random.nextInt(20)));
            final byte[] bytes = new byte[random.nextInt(30)];
            random.nextBytes(bytes);
            values[12] = bytes;
            final Object[] strings = new Object[random.nextInt(4)];
            for (int i = 0; i < strings.length; i++)
            {
                strings[i] = random.nextInt(4) == 0 ? null : UTF8String.fromString("e" + i);
            }
            values[13] = new GenericArrayData(strings);
            final int entries = random.nextInt(3);
            final Object[] keys = new Object[entries];
            final Object[] mapValues = new Object[entries];
            for (int i = 0; i < entries; i++)
            {
                keys[i] = i * 7;
                mapValues[i] = random.nextInt(3) == 0 ? null : (Object) random.nextDouble();
            }
            values[14] = new ArrayBasedMapData(new GenericArrayData(keys), new GenericArrayData(mapValues));
            values[15] = new GenericInternalRow(new Object[] {
                random.nextInt(3) == 0 ? null : (Object) random.nextInt(),
                random.nextInt(3) == 0 ? null : UTF8String.fromString("n" + n),
                new GenericArrayData(new Object[] {random.nextDouble(), (double) n})});
            for (int i = 0; i < values.length; i++)
            {
                if (i != 4 && random.nextInt(5) == 0)
                {
                    values[i] = null;
                }
            }
            rows.add(new GenericInternalRow(values));
        }
        return rows;
    }
}
