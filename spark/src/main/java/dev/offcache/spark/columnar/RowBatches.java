package dev.offcache.spark.columnar;

import java.util.Iterator;
import java.util.NoSuchElementException;

import org.agrona.BufferUtil;
import org.agrona.ExpandableDirectByteBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * Rows turned into columnar batches as they are read, for a cached partition that must be recomputed from its lineage
 * inside a columnar scan: each batch is written into one reused off-heap buffer and read back from it as a partition's
 * batch is. Owns that buffer (about one batch) and frees it on {@link #close}; single-threaded, one batch at a time.
 */
public final class RowBatches implements Iterator<ColumnarBatch>, AutoCloseable
{
    private final Iterator<InternalRow> rows;
    private final BatchWriter writer;
    private final MappedColumnVector[] vectors;
    private final ExpandableDirectByteBuffer memory = new ExpandableDirectByteBuffer(1 << 16);
    private final UnsafeBuffer view = new UnsafeBuffer(0L, 0);
    private int length;

    /**
     * Batches of {@code rows}.
     *
     * @param rows   the recomputed rows (a reused row is fine).
     * @param schema their schema; {@link ColumnarLayout#supports} must hold.
     */
    public RowBatches(final Iterator<InternalRow> rows, final StructType schema)
    {
        this.rows = rows;
        this.writer = new BatchWriter(schema);
        this.vectors = ColumnarBatches.vectors(schema);
    }

    @Override
    public boolean hasNext()
    {
        return rows.hasNext();
    }

    @Override
    public ColumnarBatch next()
    {
        if (!rows.hasNext())
        {
            throw new NoSuchElementException();
        }
        length = 0;
        final BatchWriter.Sink sink = (buffer, offset, bytes) ->
        {
            memory.putBytes(length, buffer, offset, bytes);
            length += bytes;
        };
        writer.start(sink);
        while (rows.hasNext() && !writer.isFull())
        {
            writer.add(rows.next());
        }
        writer.flush(sink);
        view.wrap(memory.addressOffset(), length);
        final ColumnarBatches batches = new ColumnarBatches(view, vectors);
        return batches.next();
    }

    @Override
    public void close()
    {
        writer.close();
        BufferUtil.free(memory.byteBuffer());
    }
}
