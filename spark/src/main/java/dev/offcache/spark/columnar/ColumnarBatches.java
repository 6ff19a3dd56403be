package dev.offcache.spark.columnar;

import java.util.Iterator;
import java.util.NoSuchElementException;

import org.agrona.DirectBuffer;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * The batches of a columnar partition, read in place: one {@link ColumnarBatch} of {@link MappedColumnVector}s,
 * re-pointed at each batch, so reading allocates nothing per batch or row (a consumer must be done with a batch
 * before asking for the next, as Spark's columnar-to-row step is). The buffer is the whole partition, owned by
 * whoever opened it; the batches are valid while it is.
 */
public final class ColumnarBatches implements Iterator<ColumnarBatch>
{
    private final DirectBuffer buffer;
    private final MappedColumnVector[] vectors;
    private final ColumnarBatch batch;
    private final long base;
    private final long end;
    private long position;

    /**
     * The batches of {@code buffer}.
     *
     * @param buffer the whole partition, starting with {@link ColumnarLayout#MAGIC}.
     * @param schema the schema it was written with.
     * @throws IllegalStateException when the buffer is not a columnar partition.
     * @throws IllegalArgumentException when the buffer is over a heap array.
     */
    public ColumnarBatches(final DirectBuffer buffer, final StructType schema)
    {
        this(buffer, vectors(schema));
    }

    ColumnarBatches(final DirectBuffer buffer, final MappedColumnVector[] vectors)
    {
        if (buffer.byteArray() != null)
        {
            // The vectors read by address: a buffer over a heap array has none.
            throw new IllegalArgumentException("a columnar partition is read from off-heap memory only");
        }
        if (!ColumnarLayout.isColumnar(buffer))
        {
            throw new IllegalStateException("not a columnar partition (written in another layout)");
        }
        this.buffer = buffer;
        this.vectors = vectors;
        this.batch = new ColumnarBatch(vectors);
        this.base = buffer.addressOffset();
        this.end = base + buffer.capacity();
        this.position = base + Long.BYTES;
    }

    static MappedColumnVector[] vectors(final StructType schema)
    {
        final MappedColumnVector[] vectors = new MappedColumnVector[schema.fields().length];
        for (int i = 0; i < vectors.length; i++)
        {
            vectors[i] = new MappedColumnVector(schema.fields()[i].dataType());
        }
        return vectors;
    }

    /**
     * The vector classes, for Spark's generated columnar-to-row code.
     *
     * @return the class name of every column's vector.
     */
    public static String vectorClass()
    {
        return MappedColumnVector.class.getName();
    }

    @Override
    public boolean hasNext()
    {
        return position < end;
    }

    @Override
    public ColumnarBatch next()
    {
        if (!hasNext())
        {
            throw new NoSuchElementException();
        }
        final int offset = (int) (position - base);
        final long length = buffer.getLong(offset);
        final int rows = buffer.getInt(offset + Long.BYTES);
        final long limit = position + length;
        if (length < ColumnarLayout.BATCH_HEADER || limit > end || rows < 0)
        {
            throw new IllegalStateException("columnar partition damaged: a batch of " + length + " bytes at " + offset);
        }
        long at = position + ColumnarLayout.BATCH_HEADER;
        for (final MappedColumnVector vector : vectors)
        {
            at = vector.point(at, rows, limit);
        }
        if (at != limit)
        {
            throw new IllegalStateException("columnar partition damaged: a batch's columns end at " + (at - base)
                + ", not at " + (limit - base));
        }
        position = limit;
        batch.setNumRows(rows);
        return batch;
    }
}
