package dev.offcache.spark.columnar;

import java.nio.ByteBuffer;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.types.StructType;

/**
 * Turns rows into {@link ColumnarLayout} batches: {@link #add} a row at a time until {@link #isFull}, then
 * {@link #flush} the batch into a {@link Sink}. Rows are copied into the columns as they come, so a reused input row
 * is fine and nothing is held on the heap. Owns its columns' off-heap buffers (at most one batch's worth, about
 * {@link ColumnarLayout#BATCH_BYTES}); {@link #close} frees them. Single-threaded.
 */
public final class BatchWriter implements AutoCloseable
{
    /** Where batches go: a partition file being written, or memory. */
    @FunctionalInterface
    public interface Sink
    {
        /**
         * Appends bytes.
         *
         * @param buffer the bytes' buffer.
         * @param offset where they start in it.
         * @param length how many.
         */
        void write(DirectBuffer buffer, int offset, int length);
    }

    private final ColumnWriter[] columns;
    private final UnsafeBuffer header = new UnsafeBuffer(ByteBuffer.allocateDirect(ColumnarLayout.BATCH_HEADER));
    private int rows;
    private boolean full;

    /**
     * A writer for rows of {@code schema}.
     *
     * @param schema the rows' schema; {@link ColumnarLayout#supports} must hold.
     */
    public BatchWriter(final StructType schema)
    {
        if (!ColumnarLayout.supports(schema))
        {
            throw new IllegalArgumentException("no columnar form for " + schema.simpleString());
        }
        columns = new ColumnWriter[schema.fields().length];
        for (int i = 0; i < columns.length; i++)
        {
            columns[i] = new ColumnWriter(schema.fields()[i].dataType());
        }
    }

    /**
     * Writes the file's first bytes, before any batch.
     *
     * @param sink the file.
     */
    public void start(final Sink sink)
    {
        header.putLong(0, ColumnarLayout.MAGIC);
        sink.write(header, 0, Long.BYTES);
    }

    /**
     * Appends a row to the batch.
     *
     * @param row the row; not kept.
     */
    public void add(final InternalRow row)
    {
        for (int i = 0; i < columns.length; i++)
        {
            columns[i].append(row, i);
        }
        rows++;
        // The size is a walk over the columns, as cheap as the row's append; checked every row, so that rows of
        // long strings or large arrays close the batch near the bound rather than far past it.
        if (rows == ColumnarLayout.BATCH_ROWS || bytes() >= ColumnarLayout.BATCH_BYTES)
        {
            full = true;
        }
    }

    /**
     * Whether the batch should be flushed before the next row.
     *
     * @return true at {@link ColumnarLayout#BATCH_ROWS} rows or about {@link ColumnarLayout#BATCH_BYTES} bytes.
     */
    public boolean isFull()
    {
        return full;
    }

    /**
     * The rows in the batch.
     *
     * @return rows added since the last flush.
     */
    public int rows()
    {
        return rows;
    }

    /**
     * Writes the batch (nothing when it is empty) and starts the next.
     *
     * @param sink where the batch goes.
     */
    public void flush(final Sink sink)
    {
        if (rows == 0)
        {
            return;
        }
        header.putLong(0, ColumnarLayout.BATCH_HEADER + bytes());
        header.putInt(8, rows);
        header.putInt(12, 0);
        sink.write(header, 0, ColumnarLayout.BATCH_HEADER);
        for (final ColumnWriter column : columns)
        {
            column.writeTo(sink, header);
        }
        for (final ColumnWriter column : columns)
        {
            column.reset();
        }
        rows = 0;
        full = false;
    }

    private long bytes()
    {
        long bytes = 0;
        for (final ColumnWriter column : columns)
        {
            bytes += column.bytes();
        }
        return bytes;
    }

    @Override
    public void close()
    {
        for (final ColumnWriter column : columns)
        {
            column.close();
        }
        org.agrona.BufferUtil.free(header.byteBuffer());
    }
}
