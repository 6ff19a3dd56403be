package dev.offcache.core.shuffle;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.zip.CRC32C;

import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;

import dev.offcache.core.ref.AbstractRefCounted;
import dev.offcache.core.region.MappedRegion;

/**
 * A committed partition mapped read-only, handing out zero-copy views of its data bytes. The footer, the length and the
 * partition's identity are checked when it is opened (a truncated or damaged file, or the valid file of another
 * partition, fails then, with {@link CorruptPartitionException}); the data's CRC32C is checked by {@link #verify()},
 * which reads every byte, so the caller decides when to pay for it (for example once, before serving the partition to
 * another executor).
 *
 * <p>Owns its mapping. It is reference-counted ({@link dev.offcache.core.ref.RefCounted}): it starts with one
 * reference, held by whoever opened it; {@link #close()} drops that one, {@link #tryRetain()} / {@link #release()}
 * let other readers share it, and the mapping is unmapped when the last reference goes. Views handed out by
 * {@link #wrap} are valid only while the caller holds a reference, and are read-only: the mapping is, so a write
 * through a view faults.
 */
public final class MappedPartition extends AbstractRefCounted implements AutoCloseable
{
    // The data CRC is one CRC32C over the whole partition, which may exceed one 1 GiB mapping; java.util.zip.CRC32C
    // continues across chunks but reads only ByteBuffers, so chunks pass through a small direct staging buffer.
    private static final int VERIFY_CHUNK_BYTES = 64 * 1024;

    private final PartitionId id;
    private final Path path;
    private final MappedRegion region;
    private final long length;
    private final int crc32c;
    private boolean ownerClosed;

    MappedPartition(final PartitionId expected, final Path path, final MappedRegion region)
    {
        this.path = path;
        this.region = region;
        try
        {
            final long fileSize = region.capacity();
            final UnsafeBuffer footer = new UnsafeBuffer(0, 0);
            if (fileSize <= PartitionFile.TRAILER_LENGTH)
            {
                if (fileSize >= PartitionFile.LEGACY_FOOTER_LENGTH)
                {
                    region.wrap(footer, fileSize - PartitionFile.LEGACY_FOOTER_LENGTH,
                        PartitionFile.LEGACY_FOOTER_LENGTH);
                    PartitionFile.refuseLegacy(path, footer, 0);
                }
                throw new CorruptPartitionException(path, "file is " + fileSize + " bytes, shorter than the " +
                    "smallest footer (" + (PartitionFile.TRAILER_LENGTH + 1) + " bytes)");
            }
            region.wrap(footer, fileSize - PartitionFile.TRAILER_LENGTH, PartitionFile.TRAILER_LENGTH);
            final int jobIdLength = PartitionFile.checkTrailer(path, fileSize, footer, 0);
            final int footerLength = jobIdLength + PartitionFile.TRAILER_LENGTH;
            region.wrap(footer, fileSize - footerLength, footerLength);
            this.id = PartitionFile.checkFooter(path, fileSize, footer, 0, jobIdLength, expected);
            this.length = PartitionFile.dataLength(footer, jobIdLength);
            this.crc32c = PartitionFile.dataCrc(footer, jobIdLength);
        }
        catch (final RuntimeException ex)
        {
            region.close();
            throw ex;
        }
    }

    /**
     * Returns the partition, as its footer names it (the one asked for).
     *
     * @return the partition.
     */
    public PartitionId id()
    {
        return id;
    }

    /**
     * Returns the mapped file.
     *
     * @return the mapped file.
     */
    public Path path()
    {
        return path;
    }

    /**
     * Returns the number of data bytes (the footer excluded).
     *
     * @return the number of data bytes (the footer excluded).
     */
    public long length()
    {
        return length;
    }

    /**
     * Returns the CRC32C of the data bytes, as recorded in the footer.
     *
     * @return the CRC32C of the data bytes, as recorded in the footer.
     */
    public int crc32c()
    {
        return crc32c;
    }

    /**
     * Points {@code target} at {@code length} data bytes from {@code offset}: no copy, no allocation. A view never
     * spans two of the region's underlying mappings (1 GiB each), so read big partitions in chunks that do not
     * cross a 1 GiB boundary.
     *
     * @param target to point at the bytes.
     * @param offset of the first data byte.
     * @param length of the view.
     * @throws IndexOutOfBoundsException if the range is outside the data.
     * @throws IllegalStateException     if no reference is held any more.
     */
    public void wrap(final UnsafeBuffer target, final long offset, final int length)
    {
        ensureReferenced();
        if (offset < 0 || length < 0 || offset > this.length - length)
        {
            throw new IndexOutOfBoundsException("view offset=" + offset + " length=" + length +
                " is outside partition " + id + " of " + this.length + " data bytes");
        }
        region.wrap(target, offset, length);
    }

    /**
     * Reads every data byte and checks the CRC32C against the footer.
     *
     * @throws CorruptPartitionException naming the file if they differ.
     * @throws IllegalStateException     if no reference is held any more.
     */
    public void verify()
    {
        ensureReferenced();
        final CRC32C crc = new CRC32C();
        final UnsafeBuffer view = new UnsafeBuffer(0, 0);
        final ByteBuffer staging = ByteBuffer.allocateDirect((int) Math.min(VERIFY_CHUNK_BYTES, Math.max(1, length)));
        try
        {
            long offset = 0;
            while (offset < length)
            {
                final int chunk = (int) Math.min(staging.capacity(), length - offset);
                region.wrap(view, offset, chunk);
                view.getBytes(0, staging, 0, chunk);
                staging.limit(chunk).position(0);
                crc.update(staging);
                staging.clear();
                offset += chunk;
            }
        }
        finally
        {
            BufferUtil.free(staging);
        }
        final int computed = (int) crc.getValue();
        if (computed != crc32c)
        {
            throw new CorruptPartitionException(path, String.format(
                "data checksum mismatch over %d bytes (footer 0x%08x, computed 0x%08x)", length, crc32c, computed));
        }
    }

    /**
     * Unmaps the file once the last reader is gone.
     */
    @Override
    protected void onLastRelease()
    {
        region.close();
    }

    /**
     * Drops the opener's reference (once; later calls do nothing).
     */
    @Override
    public void close()
    {
        if (!ownerClosed)
        {
            ownerClosed = true;
            release();
        }
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public String toString()
    {
        return "partition " + id + " (" + path + ")";
    }

    private void ensureReferenced()
    {
        if (isReleased())
        {
            throw new IllegalStateException("partition " + id + " (" + path + ") is closed");
        }
    }
}
