package dev.offcache.spark.columnar;

import java.math.BigDecimal;
import java.math.BigInteger;

import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarArray;
import org.apache.spark.sql.vectorized.ColumnarMap;
import org.apache.spark.unsafe.Platform;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * A column of one {@link ColumnarLayout} batch, read where it lies: values are read from the batch's memory (the
 * mapped partition, a fetched copy, or a recomputed batch) by address, nothing is copied. The vector is re-pointed at
 * each batch ({@link #point}); it owns no memory, and is valid while the memory it points into is (the task).
 */
public final class MappedColumnVector extends ColumnVector
{
    private final ColumnarLayout.Kind kind;
    private final MappedColumnVector[] children;
    private final int scale;
    private long nullCount;
    private long nulls;
    private long values;
    private long offsets;

    MappedColumnVector(final DataType type)
    {
        super(type);
        this.kind = ColumnarLayout.kindOf(type);
        if (kind == null)
        {
            throw new IllegalArgumentException("no columnar form for " + type.simpleString());
        }
        this.scale = type instanceof DecimalType decimal ? decimal.scale() : 0;
        final DataType[] childTypes = ColumnarLayout.childTypes(type);
        children = new MappedColumnVector[childTypes.length];
        for (int i = 0; i < children.length; i++)
        {
            children[i] = new MappedColumnVector(childTypes[i]);
        }
    }

    /**
     * Points the vector (and its children) at a column of {@code count} values starting at {@code address}.
     *
     * @param address where the column's sections start.
     * @param count   the values in the column.
     * @param limit   the end of the batch: a column reaching past it is damaged.
     * @return the address after the column.
     */
    long point(final long address, final int count, final long limit)
    {
        long position = address;
        nullCount = Platform.getLong(null, position);
        position = within(position + Long.BYTES, limit);
        if (nullCount < 0 || nullCount > count)
        {
            throw new IllegalStateException("columnar partition damaged: " + nullCount + " nulls in " + count);
        }
        nulls = nullCount > 0 ? position : 0L;
        if (nullCount > 0)
        {
            position = within(position + ColumnarLayout.padded(count), limit);
        }
        switch (kind)
        {
            case VARIABLE ->
            {
                offsets = position;
                position = within(position + ColumnarLayout.padded((count + 1) * 4L), limit);
                values = position;
                position = within(position + ColumnarLayout.padded(Platform.getInt(null, offsets + 4L * count)), limit);
            }
            case ARRAY, MAP ->
            {
                offsets = position;
                position = within(position + ColumnarLayout.padded((count + 1) * 4L), limit);
                final int elements = Platform.getInt(null, offsets + 4L * count);
                for (final MappedColumnVector child : children)
                {
                    position = child.point(position, elements, limit);
                }
            }
            case STRUCT ->
            {
                for (final MappedColumnVector child : children)
                {
                    position = child.point(position, count, limit);
                }
            }
            default ->
            {
                values = position;
                position = within(position + ColumnarLayout.padded((long) count * kind.width), limit);
            }
        }
        return position;
    }

    private static long within(final long position, final long limit)
    {
        if (position > limit)
        {
            throw new IllegalStateException("columnar partition damaged: a column reaches past its batch");
        }
        return position;
    }

    @Override
    public void close()
    {
        // Owns no memory: the batch's memory belongs to the partition opened for the task.
    }

    @Override
    public boolean hasNull()
    {
        return nullCount > 0;
    }

    @Override
    public int numNulls()
    {
        return (int) nullCount;
    }

    @Override
    public boolean isNullAt(final int rowId)
    {
        return nulls != 0L && Platform.getByte(null, nulls + rowId) != 0;
    }

    @Override
    public boolean getBoolean(final int rowId)
    {
        return Platform.getByte(null, values + rowId) != 0;
    }

    @Override
    public byte getByte(final int rowId)
    {
        return Platform.getByte(null, values + rowId);
    }

    @Override
    public short getShort(final int rowId)
    {
        return Platform.getShort(null, values + 2L * rowId);
    }

    @Override
    public int getInt(final int rowId)
    {
        return Platform.getInt(null, values + 4L * rowId);
    }

    @Override
    public long getLong(final int rowId)
    {
        return Platform.getLong(null, values + 8L * rowId);
    }

    @Override
    public float getFloat(final int rowId)
    {
        return Platform.getFloat(null, values + 4L * rowId);
    }

    @Override
    public double getDouble(final int rowId)
    {
        return Platform.getDouble(null, values + 8L * rowId);
    }

    @Override
    public ColumnarArray getArray(final int rowId)
    {
        final int start = offset(rowId);
        return new ColumnarArray(children[0], start, offset(rowId + 1) - start);
    }

    @Override
    public ColumnarMap getMap(final int rowId)
    {
        final int start = offset(rowId);
        return new ColumnarMap(children[0], children[1], start, offset(rowId + 1) - start);
    }

    @Override
    public Decimal getDecimal(final int rowId, final int precision, final int scale)
    {
        if (kind == ColumnarLayout.Kind.DECIMAL_LONG)
        {
            return Decimal.createUnsafe(getLong(rowId), precision, scale);
        }
        final BigDecimal value = new BigDecimal(new BigInteger(getBinary(rowId)), this.scale);
        return Decimal.apply(value, precision, scale);
    }

    @Override
    public UTF8String getUTF8String(final int rowId)
    {
        final int start = offset(rowId);
        return UTF8String.fromAddress(null, values + start, offset(rowId + 1) - start);
    }

    @Override
    public byte[] getBinary(final int rowId)
    {
        final int start = offset(rowId);
        final byte[] bytes = new byte[offset(rowId + 1) - start];
        Platform.copyMemory(null, values + start, bytes, Platform.BYTE_ARRAY_OFFSET, bytes.length);
        return bytes;
    }

    @Override
    public ColumnVector getChild(final int ordinal)
    {
        return children[ordinal];
    }

    private int offset(final int rowId)
    {
        return Platform.getInt(null, offsets + 4L * rowId);
    }
}
