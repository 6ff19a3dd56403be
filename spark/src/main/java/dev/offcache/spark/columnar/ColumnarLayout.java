package dev.offcache.spark.columnar;

import org.agrona.DirectBuffer;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.DayTimeIntervalType;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;
import org.apache.spark.sql.types.YearMonthIntervalType;

/**
 * The columnar partition format, one place for its rules. A file is an 8-byte {@link #MAGIC} and then batches of at
 * most {@link #BATCH_ROWS} rows. A batch is a header (its length in bytes, including the header, as a long; its row
 * count as an int; 4 bytes of zero) and then each column of the schema in order. A column is its null count (a long),
 * one byte per value (1 = null) only when that count is not zero, and its body: values of a fixed width; or
 * {@code count + 1} int offsets and then the bytes (strings, binaries, decimals wider than a long); or offsets and the
 * element column (arrays), or the key and value columns (maps); or each field's column (structs). Every section is
 * padded to 8 bytes, so every value is aligned for its width. A schema with a type not listed in {@link #kindOf}
 * (intervals of the calendar kind, user-defined types, variants) keeps the row layout.
 */
public final class ColumnarLayout
{
    /** The first 8 bytes of a columnar partition ("OCCOLS01"); a row-layout file starts with a small row length. */
    public static final long MAGIC = 0x4F43434F4C533031L;
    /** Rows per batch at most. */
    public static final int BATCH_ROWS = 4096;
    /** A batch is closed early once its columns hold this many bytes (long strings, large arrays). */
    public static final int BATCH_BYTES = 8 << 20;
    /** A batch's header: its length, its row count, padding. */
    static final int BATCH_HEADER = 16;

    /** How a column is stored. */
    enum Kind
    {
        BOOLEAN(1), BYTE(1), SHORT(2), INT(4), LONG(8), FLOAT(4), DOUBLE(8), DECIMAL_LONG(8),
        VARIABLE(0), ARRAY(0), MAP(0), STRUCT(0);

        final int width;

        Kind(final int width)
        {
            this.width = width;
        }
    }

    private ColumnarLayout()
    {
    }

    /**
     * Whether partitions of this schema are written column by column.
     *
     * @param schema the cached output's schema.
     * @return true when every column's type has a columnar form.
     */
    public static boolean supports(final StructType schema)
    {
        return kindOf(schema) != null;
    }

    /**
     * Whether a partition file (or fetched copy) is in the columnar layout.
     *
     * @param buffer the whole partition.
     * @return true when it starts with {@link #MAGIC}.
     */
    public static boolean isColumnar(final DirectBuffer buffer)
    {
        return buffer.capacity() >= Long.BYTES && buffer.getLong(0) == MAGIC;
    }

    static Kind kindOf(final DataType type)
    {
        if (type instanceof BooleanType)
        {
            return Kind.BOOLEAN;
        }
        if (type instanceof ByteType)
        {
            return Kind.BYTE;
        }
        if (type instanceof ShortType)
        {
            return Kind.SHORT;
        }
        if (type instanceof IntegerType || type instanceof DateType || type instanceof YearMonthIntervalType)
        {
            return Kind.INT;
        }
        if (type instanceof LongType || type instanceof TimestampType || type instanceof TimestampNTZType
            || type instanceof DayTimeIntervalType)
        {
            return Kind.LONG;
        }
        if (type instanceof FloatType)
        {
            return Kind.FLOAT;
        }
        if (type instanceof DoubleType)
        {
            return Kind.DOUBLE;
        }
        if (type instanceof DecimalType decimal)
        {
            return decimal.precision() <= Decimal.MAX_LONG_DIGITS() ? Kind.DECIMAL_LONG : Kind.VARIABLE;
        }
        if (type instanceof StringType || type instanceof BinaryType)
        {
            return Kind.VARIABLE;
        }
        if (type instanceof ArrayType array)
        {
            return kindOf(array.elementType()) == null ? null : Kind.ARRAY;
        }
        if (type instanceof MapType map)
        {
            return kindOf(map.keyType()) == null || kindOf(map.valueType()) == null ? null : Kind.MAP;
        }
        if (type instanceof StructType struct)
        {
            for (final StructField field : struct.fields())
            {
                if (kindOf(field.dataType()) == null)
                {
                    return null;
                }
            }
            return Kind.STRUCT;
        }
        return null;
    }

    /**
     * The child columns of a column: an array's elements, a map's keys and values, a struct's fields, else none.
     *
     * @param type the column's type.
     * @return the children's types, in the order their columns follow the parent's sections.
     */
    static DataType[] childTypes(final DataType type)
    {
        if (type instanceof ArrayType array)
        {
            return new DataType[] {array.elementType()};
        }
        if (type instanceof MapType map)
        {
            return new DataType[] {map.keyType(), map.valueType()};
        }
        if (type instanceof StructType struct)
        {
            final DataType[] fields = new DataType[struct.fields().length];
            for (int i = 0; i < fields.length; i++)
            {
                fields[i] = struct.fields()[i].dataType();
            }
            return fields;
        }
        return new DataType[0];
    }

    static long padded(final long bytes)
    {
        return (bytes + 7) & ~7L;
    }
}
