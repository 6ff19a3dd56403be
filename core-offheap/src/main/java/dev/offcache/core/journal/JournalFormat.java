package dev.offcache.core.journal;

import java.nio.file.Path;

import org.agrona.BitUtil;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import dev.offcache.core.checksum.Crc32c;

import static java.nio.ByteOrder.LITTLE_ENDIAN;

/**
 * The journal's on-disk format (all little-endian).
 *
 * <p>A segment file {@code {base position, 20 decimal digits}.journal} is preallocated to its capacity and starts
 * with a {@value #HEADER_LENGTH}-byte header:
 *
 * <pre>
 *   0  int  magic      0x4C4A434F ("OCJL")
 *   4  int  version    1
 *   8  long base       journal position of the segment's first byte
 *  16  int  capacity   segment file size in bytes
 *  20  int  headerCrc  CRC32C of header bytes [0, 20)
 *  24  int  checkpoint how far the segment's records were acknowledged: an offset in the segment, with bit 31 set
 *                      once the journal rolled past the segment (sealed: a successor segment exists)
 *  28  int  checkCrc   CRC32C of header bytes [20, 28) (the header CRC, tying it to this header, and the checkpoint)
 * </pre>
 *
 * Bytes 24..31 are zero in a segment without a checkpoint yet (and in journals written before checkpoints
 * existed); the journal rewrites them in place when it forces, rolls and closes, as one aligned 8-byte store, so
 * neither a killed process nor a torn sector can leave half of them.
 *
 * Records follow, each at an 8-byte-aligned offset:
 *
 * <pre>
 *   0  int  crc          CRC32C of bytes [4, frameLength): the frame length and the payload
 *   4  int  frameLength  8 + payload length, so never 0 for a record
 *   8  payload, then zero padding to the next multiple of 8
 * </pre>
 *
 * A frame length of 0 marks the end of the data: the rest of a preallocated segment is zeros. Because the checksum
 * covers the length, a torn or flipped length is detected like a torn payload. A record's journal position is the
 * segment base plus its frame's offset; the next segment's base is the previous base plus its capacity.
 */
final class JournalFormat
{
    static final int MAGIC = 0x4C4A434F;
    static final int VERSION = 1;
    static final int HEADER_LENGTH = 32;
    static final int MAGIC_OFFSET = 0;
    static final int VERSION_OFFSET = 4;
    static final int BASE_OFFSET = 8;
    static final int CAPACITY_OFFSET = 16;
    static final int HEADER_CRC_OFFSET = 20;
    static final int CHECKPOINT_OFFSET = 24;
    static final int CHECKPOINT_CRC_OFFSET = 28;
    static final int SEALED = 0x8000_0000;

    static final int FRAME_ALIGNMENT = 8;
    static final int FRAME_HEADER_LENGTH = 8;
    static final int CRC_FIELD_OFFSET = 0;
    static final int LENGTH_FIELD_OFFSET = 4;

    static final String SEGMENT_SUFFIX = ".journal";
    static final String TEMP_SUFFIX = ".journal.tmp";
    static final int SEGMENT_NAME_DIGITS = 20;

    private JournalFormat()
    {
    }

    static String segmentFileName(final long basePosition)
    {
        return String.format("%020d", basePosition) + SEGMENT_SUFFIX;
    }

    /**
     * Returns the base position a segment file name encodes, or -1 if the name is not a segment's.
     *
     * @return the base position a segment file name encodes, or -1 if the name is not a segment's.
     */
    static long parseSegmentFileName(final String name)
    {
        if (name.length() != SEGMENT_NAME_DIGITS + SEGMENT_SUFFIX.length() || !name.endsWith(SEGMENT_SUFFIX))
        {
            return -1;
        }
        long value = 0;
        for (int i = 0; i < SEGMENT_NAME_DIGITS; i++)
        {
            final char c = name.charAt(i);
            if (c < '0' || c > '9' || value > (Long.MAX_VALUE - 9) / 10)
            {
                return -1;
            }
            value = value * 10 + (c - '0');
        }
        return value;
    }

    static void encodeHeader(final MutableDirectBuffer buffer, final long basePosition, final int capacity)
    {
        buffer.setMemory(0, HEADER_LENGTH, (byte) 0);
        buffer.putInt(MAGIC_OFFSET, MAGIC, LITTLE_ENDIAN);
        buffer.putInt(VERSION_OFFSET, VERSION, LITTLE_ENDIAN);
        buffer.putLong(BASE_OFFSET, basePosition, LITTLE_ENDIAN);
        buffer.putInt(CAPACITY_OFFSET, capacity, LITTLE_ENDIAN);
        buffer.putInt(HEADER_CRC_OFFSET, Crc32c.compute(buffer, 0, HEADER_CRC_OFFSET), LITTLE_ENDIAN);
    }

    /**
     * Checks a segment header and returns the capacity it records.
     *
     * @throws JournalCorruptException naming the file if the header is damaged or disagrees with the file name.
     */
    static int checkHeader(final Path path, final long expectedBase, final DirectBuffer buffer)
    {
        final int magic = buffer.getInt(MAGIC_OFFSET, LITTLE_ENDIAN);
        if (magic != MAGIC)
        {
            throw new JournalCorruptException(path, MAGIC_OFFSET, String.format(
                "bad segment magic 0x%08x (expected 0x%08x)", magic, MAGIC));
        }
        final int storedCrc = buffer.getInt(HEADER_CRC_OFFSET, LITTLE_ENDIAN);
        final int computedCrc = Crc32c.compute(buffer, 0, HEADER_CRC_OFFSET);
        if (storedCrc != computedCrc)
        {
            throw new JournalCorruptException(path, HEADER_CRC_OFFSET, String.format(
                "segment header checksum mismatch (stored 0x%08x, computed 0x%08x)", storedCrc, computedCrc));
        }
        final int version = buffer.getInt(VERSION_OFFSET, LITTLE_ENDIAN);
        if (version != VERSION)
        {
            throw new JournalCorruptException(path, VERSION_OFFSET, "unsupported segment version " + version +
                " (supported: " + VERSION + ")");
        }
        final long base = buffer.getLong(BASE_OFFSET, LITTLE_ENDIAN);
        if (base != expectedBase)
        {
            throw new JournalCorruptException(path, BASE_OFFSET, "header base position " + base +
                " disagrees with the file name's " + expectedBase);
        }
        final int capacity = buffer.getInt(CAPACITY_OFFSET, LITTLE_ENDIAN);
        if (capacity < HEADER_LENGTH + FRAME_HEADER_LENGTH || capacity > Journal.Context.MAX_SEGMENT_SIZE ||
            (capacity & (FRAME_ALIGNMENT - 1)) != 0)
        {
            throw new JournalCorruptException(path, CAPACITY_OFFSET, "implausible segment capacity " + capacity);
        }
        return capacity;
    }

    /**
     * The 8 bytes of a checkpoint as one little-endian long (the checkpoint, then its checksum), to be written at
     * {@link #CHECKPOINT_OFFSET} in one aligned store.
     *
     * @param scratch      8 bytes to compute the checksum in.
     * @param headerCrc    the segment header's CRC (bytes 20..23), which the checksum covers.
     * @param acknowledged offset up to which the segment's records were acknowledged.
     * @param sealed       whether a successor segment exists.
     */
    static long checkpointWord(
        final MutableDirectBuffer scratch, final int headerCrc, final int acknowledged, final boolean sealed)
    {
        final int checkpoint = acknowledged | (sealed ? SEALED : 0);
        final int crc = checkpointCrc(scratch, headerCrc, checkpoint);
        return (checkpoint & 0xFFFF_FFFFL) | ((long) crc << 32);
    }

    /**
     * Reads a segment header's checkpoint (its raw field: offset and {@link #SEALED} bit), 0 if there is none.
     *
     * @throws JournalCorruptException naming the file if the checkpoint fails its checksum.
     */
    static int checkCheckpoint(final Path path, final DirectBuffer buffer, final int capacity)
    {
        final int checkpoint = buffer.getInt(CHECKPOINT_OFFSET, LITTLE_ENDIAN);
        final int storedCrc = buffer.getInt(CHECKPOINT_CRC_OFFSET, LITTLE_ENDIAN);
        if (checkpoint == 0 && storedCrc == 0)
        {
            return 0;
        }
        final int computedCrc = checkpointCrc(
            new UnsafeBuffer(new byte[Long.BYTES]), buffer.getInt(HEADER_CRC_OFFSET, LITTLE_ENDIAN), checkpoint);
        if (storedCrc != computedCrc)
        {
            throw new JournalCorruptException(path, CHECKPOINT_OFFSET, String.format(
                "segment checkpoint checksum mismatch (stored 0x%08x, computed 0x%08x)", storedCrc, computedCrc));
        }
        final int acknowledged = checkpoint & ~SEALED;
        if (acknowledged < HEADER_LENGTH || acknowledged > capacity)
        {
            throw new JournalCorruptException(path, CHECKPOINT_OFFSET, "implausible checkpoint offset " +
                acknowledged + " in a segment of " + capacity + " bytes");
        }
        return checkpoint;
    }

    private static int checkpointCrc(final MutableDirectBuffer scratch, final int headerCrc, final int checkpoint)
    {
        scratch.putInt(0, headerCrc, LITTLE_ENDIAN);
        scratch.putInt(Integer.BYTES, checkpoint, LITTLE_ENDIAN);
        return Crc32c.compute(scratch, 0, Long.BYTES);
    }

    static int alignedFrameLength(final int frameLength)
    {
        return BitUtil.align(frameLength, FRAME_ALIGNMENT);
    }

    static int frameLength(final DirectBuffer buffer, final int frameOffset)
    {
        return buffer.getInt(frameOffset + LENGTH_FIELD_OFFSET, LITTLE_ENDIAN);
    }

    /**
     * Why the frame at {@code frameOffset} is not a valid record, or null if it is one. Callers check for the end
     * marker (frame length 0) first.
     */
    static String frameDefect(final DirectBuffer buffer, final int frameOffset, final int capacity)
    {
        final int frameLength = frameLength(buffer, frameOffset);
        if (frameLength < FRAME_HEADER_LENGTH || frameLength > capacity - frameOffset)
        {
            return "record frame length " + frameLength + " is outside [" + FRAME_HEADER_LENGTH + ", " +
                (capacity - frameOffset) + "]";
        }
        final int storedCrc = buffer.getInt(frameOffset + CRC_FIELD_OFFSET, LITTLE_ENDIAN);
        final int computedCrc = Crc32c.compute(
            buffer, frameOffset + LENGTH_FIELD_OFFSET, frameLength - LENGTH_FIELD_OFFSET);
        if (storedCrc != computedCrc)
        {
            return String.format("record checksum mismatch (stored 0x%08x, computed 0x%08x, frame length %d)",
                storedCrc, computedCrc, frameLength);
        }
        return null;
    }

    /**
     * Returns the offset of the first valid record frame at or after {@code from} (aligned), or -1 if none.
     *
     * @return the offset of the first valid record frame at or after {@code from} (aligned), or -1 if none.
     */
    static int findValidFrame(final DirectBuffer buffer, final int from, final int capacity)
    {
        for (int offset = BitUtil.align(from, FRAME_ALIGNMENT);
            offset <= capacity - FRAME_HEADER_LENGTH;
            offset += FRAME_ALIGNMENT)
        {
            if (frameLength(buffer, offset) != 0 && frameDefect(buffer, offset, capacity) == null)
            {
                return offset;
            }
        }
        return -1;
    }

    static void writeFrame(
        final MutableDirectBuffer segment,
        final int frameOffset,
        final DirectBuffer source,
        final int sourceOffset,
        final int length)
    {
        final int frameLength = FRAME_HEADER_LENGTH + length;
        segment.putBytes(frameOffset + FRAME_HEADER_LENGTH, source, sourceOffset, length);
        segment.putInt(frameOffset + LENGTH_FIELD_OFFSET, frameLength, LITTLE_ENDIAN);
        final int crc = Crc32c.compute(segment, frameOffset + LENGTH_FIELD_OFFSET, frameLength - LENGTH_FIELD_OFFSET);
        segment.putInt(frameOffset + CRC_FIELD_OFFSET, crc, LITTLE_ENDIAN);
    }
}
