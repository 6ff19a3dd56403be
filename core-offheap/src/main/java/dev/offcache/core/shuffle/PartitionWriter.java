package dev.offcache.core.shuffle;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Locale;
import java.util.zip.CRC32C;

import org.agrona.BufferUtil;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Writes one partition: data goes to a hidden temporary file in the stage directory; {@link #commit()} appends the
 * footer (length, CRC32C, the partition's identity), forces the file, renames it atomically to its final name and
 * forces the directory, so a reader sees either no partition or the whole of it. {@link #abort()} (or {@link #close()}
 * before a commit) deletes the temporary file; a crash leaves only a temporary file, which readers never see and the
 * store deletes on startup and on listing.
 *
 * <p>Owned by one thread. Owns a small direct staging buffer (freed on commit or abort) and the temporary file's
 * channel; writes copy the caller's bytes into the staging buffer (off-heap to off-heap) and never keep a
 * reference to the caller's buffer. Committing over an existing partition replaces it atomically; readers that
 * already mapped the old file keep seeing the old bytes.
 */
public final class PartitionWriter implements AutoCloseable
{
    static final int STAGING_BYTES = 64 * 1024;

    private enum State
    {
        OPEN, COMMITTED, ABORTED
    }

    private final ShufflePartitionStore store;
    private final PartitionId id;
    private final Path tempPath;
    private final Path finalPath;
    private final FileChannel channel;
    private final CRC32C crc = new CRC32C();
    private ByteBuffer staging;
    private final UnsafeBuffer stagingBuffer;
    private long length;
    private State state = State.OPEN;

    PartitionWriter(
        final ShufflePartitionStore store, final PartitionId id, final Path tempPath, final Path finalPath)
        throws IOException
    {
        this.store = store;
        this.id = id;
        this.tempPath = tempPath;
        this.finalPath = finalPath;
        this.channel = FileChannel.open(tempPath, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        this.staging = ByteBuffer.allocateDirect(STAGING_BYTES);
        this.stagingBuffer = new UnsafeBuffer(staging);
    }

    /**
     * Returns the partition being written.
     *
     * @return the partition being written.
     */
    public PartitionId id()
    {
        return id;
    }

    /**
     * Returns the data bytes written so far.
     *
     * @return the data bytes written so far.
     */
    public long length()
    {
        return length;
    }

    /**
     * Returns the temporary file the data goes to until commit.
     *
     * @return the temporary file the data goes to until commit.
     */
    public Path tempPath()
    {
        return tempPath;
    }

    /**
     * Appends {@code length} bytes of {@code buffer} from {@code offset}.
     *
     * @param buffer holding the bytes; not retained.
     * @param offset of the first byte in {@code buffer}.
     * @param length of the bytes.
     * @throws IndexOutOfBoundsException if the range is not inside {@code buffer}.
     * @throws IllegalStateException     if the writer was committed or aborted.
     * @throws UncheckedIOException      naming the temporary file if the write fails.
     */
    public void write(final DirectBuffer buffer, final int offset, final int length)
    {
        ensureOpen("write");
        if (offset < 0 || length < 0 || (long) offset + length > buffer.capacity())
        {
            throw new IndexOutOfBoundsException("write range offset=" + offset + " length=" + length +
                " is outside the source buffer of capacity " + buffer.capacity());
        }
        int position = offset;
        int remaining = length;
        while (remaining > 0)
        {
            final int chunk = Math.min(remaining, staging.remaining());
            buffer.getBytes(position, staging, staging.position(), chunk);
            staging.position(staging.position() + chunk);
            position += chunk;
            remaining -= chunk;
            if (!staging.hasRemaining())
            {
                flushStaging(true);
            }
        }
        this.length += length;
    }

    /**
     * Appends the footer, forces the file, renames it to its final name and forces the stage directory.
     *
     * @return where the partition now lives, its data length and CRC32C.
     * @throws IllegalStateException if already committed or aborted.
     * @throws UncheckedIOException  naming the file if any step fails; the temporary file is then deleted.
     */
    public PartitionInfo commit()
    {
        ensureOpen("commit");
        try
        {
            flushStaging(true);
            final int dataCrc = (int) crc.getValue();
            staging.position(PartitionFile.encodeFooter(stagingBuffer, 0, id, length, dataCrc));
            flushStaging(false);
            channel.force(true);
            channel.close();
            Files.move(tempPath, finalPath, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            state = State.COMMITTED;
            PartitionFile.forceDirectory(finalPath.getParent());
            return new PartitionInfo(id, finalPath, length, dataCrc);
        }
        catch (final IOException ex)
        {
            abortIfOpen();
            throw new UncheckedIOException("failed to commit shuffle partition " + id + " (" + tempPath + " -> " +
                finalPath + ")", ex);
        }
        catch (final RuntimeException ex)
        {
            abortIfOpen();
            throw ex;
        }
        finally
        {
            release();
        }
    }

    /**
     * Discards everything written and deletes the temporary file. Does nothing if already aborted.
     *
     * @throws IllegalStateException if the partition was already committed.
     */
    public void abort()
    {
        if (state == State.COMMITTED)
        {
            throw new IllegalStateException("shuffle partition " + id + " is already committed; delete its stage " +
                "to remove it");
        }
        if (state == State.ABORTED)
        {
            return;
        }
        state = State.ABORTED;
        try
        {
            channel.close();
            Files.deleteIfExists(tempPath);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("failed to delete temporary shuffle file " + tempPath, ex);
        }
        finally
        {
            release();
        }
    }

    /**
     * Aborts unless committed, so try-with-resources never leaves a temporary file behind.
     */
    @Override
    public void close()
    {
        if (state == State.OPEN)
        {
            abort();
        }
    }

    private void abortIfOpen()
    {
        if (state == State.OPEN)
        {
            abort();
        }
    }

    private void flushStaging(final boolean checksum)
    {
        staging.flip();
        if (checksum)
        {
            crc.update(staging);
            staging.rewind();
        }
        try
        {
            while (staging.hasRemaining())
            {
                channel.write(staging);
            }
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("failed to write temporary shuffle file " + tempPath, ex);
        }
        staging.clear();
    }

    private void ensureOpen(final String action)
    {
        if (state != State.OPEN)
        {
            throw new IllegalStateException("cannot " + action + " shuffle partition " + id + ": writer is " +
                state.name().toLowerCase(Locale.ROOT));
        }
    }

    private void release()
    {
        if (staging != null)
        {
            BufferUtil.free(staging);
            staging = null;
            store.writerFinished(tempPath);
        }
    }
}
