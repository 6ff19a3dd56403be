package dev.offcache.core.region;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.ReadOnlyBufferException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.agrona.BufferUtil;
import org.agrona.DirectBuffer;
import org.agrona.IoUtil;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * A contiguous range of off-heap memory addressed by {@code long} offsets: a memory-mapped file (new or existing,
 * read-only or read-write) or anonymous memory.
 *
 * <p>A region of any size is held as a sequence of mappings of at most {@link #MAPPING_SIZE} (1 GiB) each, because a
 * single {@link java.nio.MappedByteBuffer} cannot exceed 2 GiB. Views ({@link #wrap}, {@link #view}) never span
 * two mappings: the memory of two mappings is not adjacent, so a view across the boundary would read foreign memory.
 * Callers that cut the region into aligned power-of-two pieces of at most 1 GiB never meet that boundary.
 *
 * <p><b>Memory ownership.</b> The region owns its mappings. {@link #close()} unmaps them at once (Agrona
 * {@link IoUtil#unmap(java.nio.ByteBuffer)} / {@link BufferUtil#free(java.nio.ByteBuffer)}), not when the GC gets to
 * it. Every view handed out points into that memory, so the owner must make sure no view is used after close
 * (a {@code BlockSlab} does that with reference counts). Methods of the region itself throw
 * {@link IllegalStateException} after close. Views of a read-only region must not be written: the region's own
 * {@code put*} methods refuse with {@link ReadOnlyBufferException}, but a write through a raw view cannot be checked.
 *
 * <p>Not thread-safe for close: access from many threads is fine, closing while others still access is the owner's
 * bug. {@link #liveMappings()} counts mappings across the process, so leak tests can assert it returns to where it
 * was.
 */
public final class MappedRegion implements AutoCloseable
{
    /**
     * Largest single mapping: 1 GiB, a power of two so that aligned power-of-two pieces never straddle two mappings.
     */
    public static final int MAPPING_SIZE = 1 << 30;

    /**
     * Alignment of the start of every mapping: file mappings are page aligned by the OS, anonymous memory by us.
     */
    public static final int PAGE_ALIGNMENT = 4096;

    private static final AtomicLong LIVE_MAPPINGS = new AtomicLong();
    private static final byte[] EMPTY = new byte[0];

    private final Path path;
    private final boolean readOnly;
    private final boolean fileBacked;
    private final long capacity;
    private final int mappingShift;
    private final long mappingMask;
    private final ByteBuffer[] mappings;
    private final UnsafeBuffer[] mappingBuffers;
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile boolean open = true;

    private MappedRegion(
        final Path path,
        final boolean readOnly,
        final boolean fileBacked,
        final long capacity,
        final int mappingSize,
        final ByteBuffer[] mappings)
    {
        this.path = path;
        this.readOnly = readOnly;
        this.fileBacked = fileBacked;
        this.capacity = capacity;
        this.mappingShift = Integer.numberOfTrailingZeros(mappingSize);
        this.mappingMask = mappingSize - 1L;
        this.mappings = mappings;
        this.mappingBuffers = new UnsafeBuffer[mappings.length];
        for (int i = 0; i < mappings.length; i++)
        {
            if (fileBacked)
            {
                mappingBuffers[i] = new UnsafeBuffer(mappings[i]);
            }
            else
            {
                // Anonymous memory is over-allocated by a page so that its start (and every slot) is page aligned.
                final long address = BufferUtil.address(mappings[i]);
                final int skip = (int) ((PAGE_ALIGNMENT - (address & (PAGE_ALIGNMENT - 1))) & (PAGE_ALIGNMENT - 1));
                mappingBuffers[i] = new UnsafeBuffer(mappings[i], skip, mappingLength(capacity, mappingSize, i));
            }
        }
    }

    /**
     * Creates a new file of {@code size} bytes and maps it read-write. The file is sparse until written; it must
     * not exist yet (a cache never silently overwrites a file it did not create).
     *
     * @param file the file to create.
     * @param size its size in bytes, &gt; 0.
     * @return the region, owning the mappings.
     * @throws UncheckedIOException if the file exists or cannot be created or mapped.
     */
    public static MappedRegion mapNewFile(final Path file, final long size)
    {
        return mapNewFile(file, size, MAPPING_SIZE);
    }

    private static void checkFileAndMappingSize(final Path file, final int mappingSize)
    {
        if (file == null)
        {
            throw new NullPointerException("file");
        }
        checkMappingSize(mappingSize);
    }

    static MappedRegion mapNewFile(final Path file, final long size, final int mappingSize)
    {
        checkFileAndMappingSize(file, mappingSize);
        if (size <= 0)
        {
            throw new IllegalArgumentException("region size must be > 0: " + size + " for " + file);
        }
        final FileChannel channel;
        try
        {
            channel = FileChannel.open(
                file, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot create " + file, ex);
        }
        try (channel)
        {
            // Mapping READ_WRITE past the end grows the file sparsely; no zero-filling pass.
            return new MappedRegion(
                file, false, true, size, mappingSize, mapAll(channel, FileChannel.MapMode.READ_WRITE, size,
                mappingSize, file));
        }
        catch (final IOException | RuntimeException ex)
        {
            // The file is ours and useless half-mapped: do not leave it behind.
            try
            {
                Files.deleteIfExists(file);
            }
            catch (final IOException suppressed)
            {
                ex.addSuppressed(suppressed);
            }
            if (ex instanceof IOException)
            {
                throw new UncheckedIOException(
                    "cannot map new file " + file + " (" + size + " bytes)", (IOException) ex);
            }
            throw (RuntimeException) ex;
        }
    }

    /**
     * Maps an existing file whole, read-only or read-write. An empty file gives a region of capacity 0.
     *
     * @param file     the file to map.
     * @param readOnly true to map it read-only.
     * @return the region, owning the mappings.
     * @throws UncheckedIOException if the file does not exist or cannot be mapped.
     */
    public static MappedRegion mapExistingFile(final Path file, final boolean readOnly)
    {
        return mapExistingFile(file, readOnly, MAPPING_SIZE);
    }

    static MappedRegion mapExistingFile(final Path file, final boolean readOnly, final int mappingSize)
    {
        checkFileAndMappingSize(file, mappingSize);
        try (FileChannel channel = readOnly ?
            FileChannel.open(file, StandardOpenOption.READ) :
            FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE))
        {
            final long size = channel.size();
            final FileChannel.MapMode mode = readOnly ? FileChannel.MapMode.READ_ONLY : FileChannel.MapMode.READ_WRITE;
            return new MappedRegion(file, readOnly, true, size, mappingSize,
                mapAll(channel, mode, size, mappingSize, file));
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot map existing file " + file, ex);
        }
    }

    /**
     * Allocates {@code size} bytes of anonymous (memory-only, zeroed, page-aligned) off-heap memory. It is taken as
     * direct buffers, so it counts against {@code -XX:MaxDirectMemorySize}.
     *
     * @param size bytes, &gt; 0.
     * @return the region, owning the memory.
     */
    public static MappedRegion anonymous(final long size)
    {
        return anonymous(size, MAPPING_SIZE);
    }

    static MappedRegion anonymous(final long size, final int mappingSize)
    {
        checkMappingSize(mappingSize);
        if (size <= 0)
        {
            throw new IllegalArgumentException("region size must be > 0: " + size);
        }
        final int count = mappingCount(size, mappingSize);
        final ByteBuffer[] buffers = new ByteBuffer[count];
        try
        {
            for (int i = 0; i < count; i++)
            {
                buffers[i] = ByteBuffer.allocateDirect(mappingLength(size, mappingSize, i) + PAGE_ALIGNMENT - 1);
                LIVE_MAPPINGS.incrementAndGet();
            }
        }
        catch (final RuntimeException | OutOfMemoryError ex)
        {
            release(buffers, false);
            throw ex;
        }
        return new MappedRegion(null, false, false, size, mappingSize, buffers);
    }

    /**
     * Returns the number of mappings (file mappings and anonymous allocations) alive in this process.
     *
     * @return the number of mappings (file mappings and anonymous allocations) alive in this process.
     */
    public static long liveMappings()
    {
        return LIVE_MAPPINGS.get();
    }

    /**
     * Returns the size of the region in bytes.
     *
     * @return size of the region in bytes.
     */
    public long capacity()
    {
        return capacity;
    }

    /**
     * Returns the mapped file, or null for an anonymous region.
     *
     * @return the mapped file, or null for an anonymous region.
     */
    public Path path()
    {
        return path;
    }

    /**
     * Returns whether the region was mapped read-only.
     *
     * @return true if the region was mapped read-only.
     */
    public boolean isReadOnly()
    {
        return readOnly;
    }

    /**
     * Returns whether {@link #close()} has been called.
     *
     * @return true once {@link #close()} has been called.
     */
    public boolean isClosed()
    {
        return !open;
    }

    /**
     * Returns the number of separate mappings the region is made of.
     *
     * @return the number of separate mappings the region is made of.
     */
    public int mappingCount()
    {
        return mappings.length;
    }

    /**
     * Returns the size of each mapping but possibly the last; a view never crosses a multiple of it.
     *
     * @return the size of each mapping but possibly the last; a view never crosses a multiple of it.
     */
    public int mappingSize()
    {
        return 1 << mappingShift;
    }

    /**
     * Points {@code target} at {@code [offset, offset + length)} of this region: zero copy, no allocation.
     *
     * @param target the buffer to re-point.
     * @param offset start in the region.
     * @param length bytes, &ge; 0.
     * @throws IndexOutOfBoundsException if the range is outside the region.
     * @throws IllegalArgumentException  if the range crosses from one mapping into the next.
     * @throws IllegalStateException     if the region is closed.
     */
    public void wrap(final UnsafeBuffer target, final long offset, final int length)
    {
        checkOpen();
        checkRange(offset, length);
        if (length == 0)
        {
            target.wrap(EMPTY);
            return;
        }
        final int index = mappingIndexFor(offset, length);
        final UnsafeBuffer mapping = mappingBuffers[index];
        target.wrap(mapping.addressOffset() + (offset & mappingMask), length);
    }

    /**
     * A new NIO buffer over {@code [offset, offset + length)}, for channel I/O straight into the region (an origin
     * read landing in a slot); one small object per call, so not for hot paths.
     *
     * @param offset start in the region.
     * @param length bytes, &ge; 0.
     * @return a direct buffer sharing this region's memory, position 0 and limit {@code length}, valid until the
     *     region is closed.
     * @throws IndexOutOfBoundsException if the range is outside the region.
     * @throws IllegalArgumentException  if the range crosses from one mapping into the next.
     */
    public ByteBuffer byteBuffer(final long offset, final int length)
    {
        checkOpen();
        checkRange(offset, length);
        if (length == 0)
        {
            return ByteBuffer.allocateDirect(0);
        }
        final int index = mappingIndexFor(offset, length);
        final UnsafeBuffer mapping = mappingBuffers[index];
        return mappings[index].slice(mapping.wrapAdjustment() + (int) (offset & mappingMask), length);
    }

    /**
     * A new buffer over {@code [offset, offset + length)}; see {@link #wrap} for the zero-allocation form.
     *
     * @param offset start in the region.
     * @param length bytes, &ge; 0.
     * @return a view sharing this region's memory, valid until the region is closed.
     */
    public UnsafeBuffer view(final long offset, final int length)
    {
        final UnsafeBuffer view = new UnsafeBuffer(EMPTY);
        wrap(view, offset, length);
        return view;
    }

    /**
     * Reads the byte at {@code offset}.
     *
     * @param offset position in the region.
     * @return the byte there.
     */
    public byte getByte(final long offset)
    {
        return bufferFor(offset, 1).getByte(inMapping(offset));
    }

    /**
     * Stores a value at a position in the region.
     *
     * @param offset position in the region.
     * @param value  byte to store.
     */
    public void putByte(final long offset, final byte value)
    {
        checkWritable();
        bufferFor(offset, 1).putByte(inMapping(offset), value);
    }

    /**
     * Reads the int at {@code offset}.
     *
     * @param offset position in the region (native byte order; must not straddle two mappings).
     * @return the int there.
     */
    public int getInt(final long offset)
    {
        return bufferFor(offset, Integer.BYTES).getInt(inMapping(offset));
    }

    /**
     * Stores a value at a position in the region.
     *
     * @param offset position in the region (native byte order; must not straddle two mappings).
     * @param value  int to store.
     */
    public void putInt(final long offset, final int value)
    {
        checkWritable();
        bufferFor(offset, Integer.BYTES).putInt(inMapping(offset), value);
    }

    /**
     * Reads the long at {@code offset}.
     *
     * @param offset position in the region (native byte order; must not straddle two mappings).
     * @return the long there.
     */
    public long getLong(final long offset)
    {
        return bufferFor(offset, Long.BYTES).getLong(inMapping(offset));
    }

    /**
     * Stores a value at a position in the region.
     *
     * @param offset position in the region (native byte order; must not straddle two mappings).
     * @param value  long to store.
     */
    public void putLong(final long offset, final long value)
    {
        checkWritable();
        bufferFor(offset, Long.BYTES).putLong(inMapping(offset), value);
    }

    /**
     * Copies bytes out of the region; unlike views, the range may cross mappings.
     *
     * @param offset    start in the region.
     * @param dst       destination buffer.
     * @param dstOffset start in {@code dst}.
     * @param length    bytes to copy.
     */
    public void getBytes(final long offset, final MutableDirectBuffer dst, final int dstOffset, final int length)
    {
        checkOpen();
        checkRange(offset, length);
        long position = offset;
        int done = 0;
        while (done < length)
        {
            final int chunk = chunkAt(position, length - done);
            dst.putBytes(dstOffset + done, mappingAt(position), inMapping(position), chunk);
            done += chunk;
            position += chunk;
        }
    }

    /**
     * Copies bytes into the region; unlike views, the range may cross mappings.
     *
     * @param offset    start in the region.
     * @param src       source buffer.
     * @param srcOffset start in {@code src}.
     * @param length    bytes to copy.
     */
    public void putBytes(final long offset, final DirectBuffer src, final int srcOffset, final int length)
    {
        checkWritable();
        checkRange(offset, length);
        long position = offset;
        int done = 0;
        while (done < length)
        {
            final int chunk = chunkAt(position, length - done);
            mappingAt(position).putBytes(inMapping(position), src, srcOffset + done, chunk);
            done += chunk;
            position += chunk;
        }
    }

    /**
     * Flushes written pages of a file-backed read-write region to the device; a no-op for anonymous or read-only
     * regions.
     */
    public void force()
    {
        checkOpen();
        if (fileBacked && !readOnly)
        {
            for (final ByteBuffer mapping : mappings)
            {
                ((MappedByteBuffer) mapping).force();
            }
        }
    }

    /**
     * Unmaps (or frees) every mapping now. Idempotent. Views handed out earlier must not be used afterwards.
     */
    public void close()
    {
        if (closed.compareAndSet(false, true))
        {
            open = false;
            release(mappings, fileBacked);
            for (int i = 0; i < mappingBuffers.length; i++)
            {
                mappingBuffers[i].wrap(EMPTY);
            }
        }
    }

    /**
     * {@inheritDoc}
     */
    public String toString()
    {
        return "MappedRegion{" +
            (fileBacked ? "path=" + path : "anonymous") +
            ", capacity=" + capacity +
            ", readOnly=" + readOnly +
            ", mappings=" + mappings.length +
            ", closed=" + !open +
            '}';
    }

    private static ByteBuffer[] mapAll(
        final FileChannel channel,
        final FileChannel.MapMode mode,
        final long size,
        final int mappingSize,
        final Path file) throws IOException
    {
        final int count = mappingCount(size, mappingSize);
        final ByteBuffer[] buffers = new ByteBuffer[count];
        try
        {
            for (int i = 0; i < count; i++)
            {
                buffers[i] = channel.map(mode, (long) i * mappingSize, mappingLength(size, mappingSize, i));
                LIVE_MAPPINGS.incrementAndGet();
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            release(buffers, true);
            throw ex;
        }
        return buffers;
    }

    private static void release(final ByteBuffer[] buffers, final boolean fileBacked)
    {
        for (int i = 0; i < buffers.length; i++)
        {
            final ByteBuffer buffer = buffers[i];
            if (buffer != null)
            {
                if (fileBacked)
                {
                    IoUtil.unmap(buffer);
                }
                else
                {
                    BufferUtil.free(buffer);
                }
                buffers[i] = null;
                LIVE_MAPPINGS.decrementAndGet();
            }
        }
    }

    private static int mappingCount(final long size, final int mappingSize)
    {
        final long count = size / mappingSize + (size % mappingSize != 0 ? 1 : 0);
        if (count > Integer.MAX_VALUE)
        {
            throw new IllegalArgumentException("region too large: " + size + " bytes");
        }
        return (int) count;
    }

    private static int mappingLength(final long size, final int mappingSize, final int index)
    {
        return (int) Math.min(mappingSize, size - (long) index * mappingSize);
    }

    private static void checkMappingSize(final int mappingSize)
    {
        if (mappingSize < 8 || Integer.bitCount(mappingSize) != 1 || mappingSize > MAPPING_SIZE)
        {
            throw new IllegalArgumentException(
                "mapping size must be a power of two in [8, " + MAPPING_SIZE + "]: " + mappingSize);
        }
    }

    private void checkOpen()
    {
        if (!open)
        {
            throw new IllegalStateException("region is closed: " + this);
        }
    }

    private void checkWritable()
    {
        checkOpen();
        if (readOnly)
        {
            throw new ReadOnlyBufferException();
        }
    }

    private void checkRange(final long offset, final int length)
    {
        if (offset < 0 || length < 0 || offset > capacity - length)
        {
            throw new IndexOutOfBoundsException(
                "range [offset=" + offset + ", length=" + length + "] is outside region of capacity " + capacity +
                (path != null ? " (" + path + ")" : ""));
        }
    }

    private int mappingIndexFor(final long offset, final int length)
    {
        final int index = (int) (offset >>> mappingShift);
        if (length > 0 && (offset & mappingMask) + length > (1L << mappingShift))
        {
            throw new IllegalArgumentException(
                "range [offset=" + offset + ", length=" + length + "] crosses the boundary between mappings " +
                index + " and " + (index + 1) + " (mapping size " + (1L << mappingShift) + ")");
        }
        return index;
    }

    private UnsafeBuffer bufferFor(final long offset, final int length)
    {
        checkOpen();
        checkRange(offset, length);
        return mappingBuffers[mappingIndexFor(offset, length)];
    }

    /** The mapping holding the byte at {@code offset} (in range). */
    private UnsafeBuffer mappingAt(final long offset)
    {
        return mappingBuffers[(int) (offset >>> mappingShift)];
    }

    /** How many of {@code remaining} bytes from {@code offset} lie in its mapping: a copy's chunk. */
    private int chunkAt(final long offset, final int remaining)
    {
        return Math.min(remaining, mappingAt(offset).capacity() - inMapping(offset));
    }

    private int inMapping(final long offset)
    {
        return (int) (offset & mappingMask);
    }
}
