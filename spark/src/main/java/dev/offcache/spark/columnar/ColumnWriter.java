package dev.offcache.spark.columnar;

import org.agrona.BufferUtil;
import org.agrona.DirectBuffer;
import org.agrona.ExpandableDirectByteBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.apache.spark.sql.catalyst.expressions.SpecializedGetters;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.catalyst.util.MapData;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * One column of the batch being written: its null bytes, values and offsets in off-heap buffers that grow to the
 * largest batch and are reused for the next; children for arrays, maps and structs. Owned by its {@link BatchWriter},
 * which frees the buffers on close.
 */
final class ColumnWriter implements AutoCloseable
{
    private static final UnsafeBuffer ZEROS = new UnsafeBuffer(new byte[8]);

    private final ColumnarLayout.Kind kind;
    private final DataType type;
    private final ColumnWriter[] children;
    private final ExpandableDirectByteBuffer nulls = new ExpandableDirectByteBuffer(64);
    private final ExpandableDirectByteBuffer values = new ExpandableDirectByteBuffer(64);
    private final ExpandableDirectByteBuffer offsets;
    private final int precision;
    private final int scale;
    private int count;
    private long nullCount;
    private int valueBytes;

    ColumnWriter(final DataType type)
    {
        this.type = type;
        this.kind = ColumnarLayout.kindOf(type);
        if (kind == null)
        {
            throw new IllegalArgumentException("no columnar form for " + type.simpleString());
        }
        final boolean withOffsets = kind == ColumnarLayout.Kind.VARIABLE || kind == ColumnarLayout.Kind.ARRAY
            || kind == ColumnarLayout.Kind.MAP;
        this.offsets = withOffsets ? new ExpandableDirectByteBuffer(64) : null;
        if (type instanceof DecimalType decimal)
        {
            precision = decimal.precision();
            scale = decimal.scale();
        }
        else
        {
            precision = 0;
            scale = 0;
        }
        final DataType[] childTypes = ColumnarLayout.childTypes(type);
        children = new ColumnWriter[childTypes.length];
        for (int i = 0; i < children.length; i++)
        {
            children[i] = new ColumnWriter(childTypes[i]);
        }
        reset();
    }

    /** Empties the column for the next batch (the buffers keep their capacity). */
    void reset()
    {
        count = 0;
        nullCount = 0;
        valueBytes = 0;
        if (offsets != null)
        {
            offsets.putInt(0, 0);
        }
        for (final ColumnWriter child : children)
        {
            child.reset();
        }
    }

    /** Appends {@code getters}' value at {@code ordinal} (a row's field, an array's element). */
    void append(final SpecializedGetters getters, final int ordinal)
    {
        if (getters.isNullAt(ordinal))
        {
            appendNull();
            return;
        }
        nulls.putByte(count, (byte) 0);
        switch (kind)
        {
            case BOOLEAN -> values.putByte(count, getters.getBoolean(ordinal) ? (byte) 1 : (byte) 0);
            case BYTE -> values.putByte(count, getters.getByte(ordinal));
            case SHORT -> values.putShort(count * 2, getters.getShort(ordinal));
            case INT -> values.putInt(count * 4, getters.getInt(ordinal));
            case LONG -> values.putLong(count * 8, getters.getLong(ordinal));
            case FLOAT -> values.putFloat(count * 4, getters.getFloat(ordinal));
            case DOUBLE -> values.putDouble(count * 8, getters.getDouble(ordinal));
            case DECIMAL_LONG ->
                values.putLong(count * 8, getters.getDecimal(ordinal, precision, scale).toUnscaledLong());
            case VARIABLE -> appendBytes(getters, ordinal);
            case ARRAY ->
            {
                final ArrayData array = getters.getArray(ordinal);
                final ColumnWriter elements = children[0];
                for (int i = 0, n = array.numElements(); i < n; i++)
                {
                    elements.append(array, i);
                }
                offsets.putInt((count + 1) * 4, elements.count);
            }
            case MAP ->
            {
                final MapData map = getters.getMap(ordinal);
                final ArrayData keys = map.keyArray();
                final ArrayData mapValues = map.valueArray();
                for (int i = 0, n = map.numElements(); i < n; i++)
                {
                    children[0].append(keys, i);
                    children[1].append(mapValues, i);
                }
                offsets.putInt((count + 1) * 4, children[0].count);
            }
            case STRUCT ->
            {
                final SpecializedGetters struct = getters.getStruct(ordinal, children.length);
                for (int i = 0; i < children.length; i++)
                {
                    children[i].append(struct, i);
                }
            }
            default -> throw new IllegalStateException(kind.name());
        }
        count++;
    }

    private void appendBytes(final SpecializedGetters getters, final int ordinal)
    {
        if (type instanceof BinaryType)
        {
            final byte[] bytes = getters.getBinary(ordinal);
            values.putBytes(valueBytes, bytes);
            valueBytes += bytes.length;
        }
        else if (type instanceof DecimalType)
        {
            final byte[] unscaled = getters.getDecimal(ordinal, precision, scale).toJavaBigDecimal()
                .unscaledValue().toByteArray();
            values.putBytes(valueBytes, unscaled);
            valueBytes += unscaled.length;
        }
        else
        {
            final UTF8String string = getters.getUTF8String(ordinal);
            final int length = string.numBytes();
            values.checkLimit(valueBytes + length);
            string.writeToMemory(null, values.addressOffset() + valueBytes);
            valueBytes += length;
        }
        offsets.putInt((count + 1) * 4, valueBytes);
    }

    /** Appends a null: its null byte set, and a placeholder that keeps the values of later rows where they belong. */
    void appendNull()
    {
        nulls.putByte(count, (byte) 1);
        nullCount++;
        switch (kind)
        {
            case VARIABLE -> offsets.putInt((count + 1) * 4, valueBytes);
            case ARRAY -> offsets.putInt((count + 1) * 4, children[0].count);
            case MAP -> offsets.putInt((count + 1) * 4, children[0].count);
            case STRUCT ->
            {
                for (final ColumnWriter child : children)
                {
                    child.appendNull();
                }
            }
            default -> values.putLong(count * kind.width, 0L); // within capacity: puts grow the buffer
        }
        count++;
    }

    /** The bytes {@link #writeTo} writes for this column now. */
    long bytes()
    {
        long bytes = Long.BYTES + (nullCount > 0 ? ColumnarLayout.padded(count) : 0);
        switch (kind)
        {
            case VARIABLE -> bytes += ColumnarLayout.padded((count + 1) * 4L) + ColumnarLayout.padded(valueBytes);
            case ARRAY, MAP -> bytes += ColumnarLayout.padded((count + 1) * 4L);
            case STRUCT ->
            {
            }
            default -> bytes += ColumnarLayout.padded((long) count * kind.width);
        }
        for (final ColumnWriter child : children)
        {
            bytes += child.bytes();
        }
        return bytes;
    }

    /** Writes this column's sections, as {@link ColumnarLayout} lays them out. */
    void writeTo(final BatchWriter.Sink sink, final UnsafeBuffer header)
    {
        header.putLong(0, nullCount);
        sink.write(header, 0, Long.BYTES);
        if (nullCount > 0)
        {
            section(sink, nulls, count);
        }
        switch (kind)
        {
            case VARIABLE ->
            {
                section(sink, offsets, (count + 1) * 4);
                section(sink, values, valueBytes);
            }
            case ARRAY, MAP -> section(sink, offsets, (count + 1) * 4);
            case STRUCT ->
            {
            }
            default -> section(sink, values, count * kind.width);
        }
        for (final ColumnWriter child : children)
        {
            child.writeTo(sink, header);
        }
    }

    private static void section(final BatchWriter.Sink sink, final DirectBuffer buffer, final int length)
    {
        if (length > 0)
        {
            sink.write(buffer, 0, length);
        }
        final int padding = (int) (ColumnarLayout.padded(length) - length);
        if (padding > 0)
        {
            sink.write(ZEROS, 0, padding);
        }
    }

    @Override
    public void close()
    {
        BufferUtil.free(nulls.byteBuffer());
        BufferUtil.free(values.byteBuffer());
        if (offsets != null)
        {
            BufferUtil.free(offsets.byteBuffer());
        }
        for (final ColumnWriter child : children)
        {
            child.close();
        }
    }
}
