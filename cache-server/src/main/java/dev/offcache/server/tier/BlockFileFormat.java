package dev.offcache.server.tier;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

import dev.offcache.core.checksum.Crc32c;
import dev.offcache.core.slab.BlockSlab;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The self-describing block file of the SSD tier: a fixed {@value #HEADER_LENGTH}-byte header, then the block's
 * bytes at a page-aligned offset (so the data can be sent with {@code sendfile} or read with direct I/O).
 *
 * <pre>
 *   0  int    magic "OCBK" (0x4B42434F, little-endian)
 *   4  short  format version ({@value #VERSION})
 *   6  short  log2 of the chunk size ({@value #CHUNK_SHIFT}; 0 in version 2)
 *   8  long   block index
 *  16  int    data length
 *  20  int    CRC32C of the data
 *  24  long   sequence number (publication order, used for capacity eviction)
 *  32  short  namespace UTF-8 length
 *  34  short  object key UTF-8 length
 *  36  int    CRC32C of bytes [0, 36) and [40, 48 + names)
 *  40  long   the object's size, or -1 when it was not known (objects are write-once, so a size never changes)
 *  48  bytes  namespace, then object key (UTF-8)
 *   n  int[]  CRC32C of each chunk of the data (every {@code 1 << chunk shift} bytes, the last one shorter), from
 *             n = 48 + names; covered by the header's CRC (version 3 only)
 * </pre>
 *
 * A header is only trusted when its magic, version and own CRC check out; data is only trusted when its CRC does.
 * The chunk CRCs let a read of a part of a block check only the chunks it touches against what was recorded when the
 * block was written; the whole block's CRC is their combination. Files of version {@value #LEGACY_VERSION} (no chunk
 * CRCs) are still read: the whole block is their one chunk, so a part of one is checked by reading the whole block.
 */
public final class BlockFileFormat
{
    /** File magic, "OCBK" read as a little-endian int. */
    public static final int MAGIC = 0x4B42434F;
    /** The format version this code writes and reads. */
    public static final short VERSION = 3;
    /** The previous version, still read: no chunk CRCs (its whole block is one chunk). */
    public static final short LEGACY_VERSION = 2;
    /** log2 of the chunk size whose CRC32C each block file records (64 KiB, as RAM slots do). */
    public static final int CHUNK_SHIFT = Crc32c.CHUNK_SHIFT;
    /** The chunk size whose CRC32C each block file records. */
    public static final int CHUNK_SIZE = Crc32c.CHUNK_SIZE;
    /** Bytes before the data: one page. */
    public static final int HEADER_LENGTH = 4096;

    private static final int VERSION_OFFSET = 4;
    private static final int CHUNK_SHIFT_OFFSET = 6;
    private static final int BLOCK_INDEX_OFFSET = 8;
    private static final int DATA_LENGTH_OFFSET = 16;
    private static final int DATA_CRC_OFFSET = 20;
    private static final int SEQUENCE_OFFSET = 24;
    private static final int NAMESPACE_LENGTH_OFFSET = 32;
    private static final int KEY_LENGTH_OFFSET = 34;
    private static final int HEADER_CRC_OFFSET = 36;
    private static final int OBJECT_SIZE_OFFSET = 40;
    /** Where the names start in the header. */
    public static final int NAMES_OFFSET = 48;
    /** Room the chunk CRCs of the largest block take after the names. */
    public static final int MAX_CHUNK_TABLE_BYTES = (BlockSlab.MAX_SLOT_SIZE >>> CHUNK_SHIFT) * Integer.BYTES;

    private BlockFileFormat()
    {
    }

    /**
     * A decoded header.
     *
     * @param name       the object's name.
     * @param blockIndex the block's index in the object.
     * @param length     the data length.
     * @param crc        the data CRC32C.
     * @param sequence   the publication sequence number.
     * @param objectSize the object's size, or -1 when not known.
     * @param chunkSize  the chunk size the CRCs below cover: {@link #CHUNK_SIZE}, or {@code length} for a file of the
     *                   legacy version (one chunk).
     * @param chunkCrcs  the CRC32C of each chunk; {@code {crc}} for a file of the legacy version.
     */
    public record Header(ObjectName name, long blockIndex, int length, int crc, long sequence, long objectSize,
        int chunkSize, int[] chunkCrcs)
    {
        /**
         * A header of the current version, its chunk CRCs given.
         *
         * @param name       the object's name.
         * @param blockIndex the block's index in the object.
         * @param length     the data length.
         * @param sequence   the publication sequence number.
         * @param objectSize the object's size, or -1 when not known.
         * @param chunkCrcs  the CRC32C of each {@link #CHUNK_SIZE} chunk ({@link Crc32c#chunks}).
         * @return the header, its whole-data CRC combined from the chunks'.
         */
        public static Header of(final ObjectName name, final long blockIndex, final int length, final long sequence,
            final long objectSize, final int[] chunkCrcs)
        {
            return new Header(name, blockIndex, length, Crc32c.combine(chunkCrcs, CHUNK_SIZE, length), sequence,
                objectSize, CHUNK_SIZE, chunkCrcs);
        }
    }

    /** Why a header could not be decoded. */
    public enum Problem
    {
        /** Not a block file, or a torn or damaged header. */
        CORRUPT,
        /** A block file of another format version. */
        UNKNOWN_VERSION
    }

    /** Thrown when a header cannot be trusted. */
    public static final class BadHeaderException extends Exception
    {
        private static final long serialVersionUID = 1L;

        private final Problem problem;

        BadHeaderException(final Problem problem, final String message)
        {
            super(message);
            this.problem = problem;
        }

        /**
         * What was wrong.
         *
         * @return the problem.
         */
        public Problem problem()
        {
            return problem;
        }
    }

    /**
     * Encodes a header into a heap buffer of {@link #HEADER_LENGTH} bytes, positioned at 0 with the limit at the end.
     *
     * @param header the header.
     * @return the encoded header.
     */
    public static ByteBuffer encode(final Header header)
    {
        final byte[] namespace = header.name().namespace().getBytes(StandardCharsets.UTF_8);
        final byte[] key = header.name().objectKey().getBytes(StandardCharsets.UTF_8);
        final ByteBuffer buffer = ByteBuffer.allocate(HEADER_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
        final int[] chunks = header.chunkCrcs();
        if (header.chunkSize() != CHUNK_SIZE || chunks.length != Crc32c.chunkCount(header.length()))
        {
            throw new IllegalArgumentException("a header of version " + VERSION + " records a CRC per " + CHUNK_SIZE +
                "-byte chunk: " + chunks.length + " CRCs of " + header.chunkSize() + " for " + header.length());
        }
        final int tableOffset = NAMES_OFFSET + namespace.length + key.length;
        if (tableOffset + chunks.length * Integer.BYTES > HEADER_LENGTH)
        {
            throw new IllegalArgumentException("names and chunk CRCs overflow the header: " + tableOffset + " + " +
                chunks.length * Integer.BYTES);
        }
        buffer.putInt(0, MAGIC);
        buffer.putShort(VERSION_OFFSET, VERSION);
        buffer.putShort(CHUNK_SHIFT_OFFSET, (short) CHUNK_SHIFT);
        buffer.putLong(BLOCK_INDEX_OFFSET, header.blockIndex());
        buffer.putInt(DATA_LENGTH_OFFSET, header.length());
        buffer.putInt(DATA_CRC_OFFSET, header.crc());
        buffer.putLong(SEQUENCE_OFFSET, header.sequence());
        buffer.putLong(OBJECT_SIZE_OFFSET, header.objectSize());
        buffer.putShort(NAMESPACE_LENGTH_OFFSET, (short) namespace.length);
        buffer.putShort(KEY_LENGTH_OFFSET, (short) key.length);
        buffer.put(NAMES_OFFSET, namespace);
        buffer.put(NAMES_OFFSET + namespace.length, key);
        for (int i = 0; i < chunks.length; i++)
        {
            buffer.putInt(tableOffset + i * Integer.BYTES, chunks[i]);
        }
        buffer.putInt(HEADER_CRC_OFFSET,
            headerCrc(buffer, namespace.length + key.length + chunks.length * Integer.BYTES));
        return buffer;
    }

    /**
     * Decodes and checks a header.
     *
     * @param buffer     the file's first bytes, little-endian, at least {@value #NAMES_OFFSET} bytes.
     * @param fileLength the file's length, checked against the data length.
     * @return the header.
     * @throws BadHeaderException when the header cannot be trusted.
     */
    public static Header decode(final ByteBuffer buffer, final long fileLength) throws BadHeaderException
    {
        if (buffer.limit() < NAMES_OFFSET || buffer.getInt(0) != MAGIC)
        {
            throw new BadHeaderException(Problem.CORRUPT, "bad magic or short header");
        }
        final short version = buffer.getShort(VERSION_OFFSET);
        if (version != VERSION && version != LEGACY_VERSION)
        {
            throw new BadHeaderException(Problem.UNKNOWN_VERSION, "unknown block format version " + version);
        }
        final int namespaceLength = buffer.getShort(NAMESPACE_LENGTH_OFFSET) & 0xFFFF;
        final int keyLength = buffer.getShort(KEY_LENGTH_OFFSET) & 0xFFFF;
        final int length = buffer.getInt(DATA_LENGTH_OFFSET);
        if (length <= 0)
        {
            throw new BadHeaderException(Problem.CORRUPT, "bad data length " + length);
        }
        final boolean legacy = version == LEGACY_VERSION;
        if (!legacy && buffer.getShort(CHUNK_SHIFT_OFFSET) != CHUNK_SHIFT)
        {
            throw new BadHeaderException(Problem.CORRUPT, "bad chunk shift " + buffer.getShort(CHUNK_SHIFT_OFFSET));
        }
        final int tableLength = legacy ? 0 : Crc32c.chunkCount(length) * Integer.BYTES;
        final int tableOffset = NAMES_OFFSET + namespaceLength + keyLength;
        if (tableOffset + (long) tableLength > Math.min(buffer.limit(), HEADER_LENGTH))
        {
            throw new BadHeaderException(Problem.CORRUPT, "name lengths overflow the header");
        }
        if (buffer.getInt(HEADER_CRC_OFFSET) != headerCrc(buffer, namespaceLength + keyLength + tableLength))
        {
            throw new BadHeaderException(Problem.CORRUPT, "header CRC mismatch");
        }
        if (HEADER_LENGTH + (long) length != fileLength)
        {
            throw new BadHeaderException(
                Problem.CORRUPT, "data length " + length + " does not match file length " + fileLength);
        }
        final long objectSize = buffer.getLong(OBJECT_SIZE_OFFSET);
        if (objectSize < -1)
        {
            throw new BadHeaderException(Problem.CORRUPT, "bad object size " + objectSize);
        }
        final byte[] namespace = new byte[namespaceLength];
        final byte[] key = new byte[keyLength];
        buffer.get(NAMES_OFFSET, namespace);
        buffer.get(NAMES_OFFSET + namespaceLength, key);
        final ObjectName name;
        try
        {
            name = new ObjectName(
                new String(namespace, StandardCharsets.UTF_8), new String(key, StandardCharsets.UTF_8));
        }
        catch (final IllegalArgumentException ex)
        {
            throw new BadHeaderException(Problem.CORRUPT, "bad object name: " + ex.getMessage());
        }
        final int crc = buffer.getInt(DATA_CRC_OFFSET);
        final int[] chunkCrcs;
        if (legacy)
        {
            chunkCrcs = new int[] {crc};
        }
        else
        {
            chunkCrcs = new int[tableLength / Integer.BYTES];
            for (int i = 0; i < chunkCrcs.length; i++)
            {
                chunkCrcs[i] = buffer.getInt(tableOffset + i * Integer.BYTES);
            }
            if (Crc32c.combine(chunkCrcs, CHUNK_SIZE, length) != crc)
            {
                throw new BadHeaderException(Problem.CORRUPT, "chunk CRCs do not combine to the data CRC");
            }
        }
        return new Header(
            name,
            buffer.getLong(BLOCK_INDEX_OFFSET),
            length,
            crc,
            buffer.getLong(SEQUENCE_OFFSET),
            objectSize,
            legacy ? length : CHUNK_SIZE,
            chunkCrcs);
    }

    /** Over the fixed fields and everything after the data CRC's slot: the size, the names and the chunk CRCs. */
    private static int headerCrc(final ByteBuffer buffer, final int namesLength)
    {
        final UnsafeBuffer view = new UnsafeBuffer(buffer.array());
        final int fixed = Crc32c.compute(view, 0, HEADER_CRC_OFFSET);
        final int names = Crc32c.compute(view, OBJECT_SIZE_OFFSET, NAMES_OFFSET - OBJECT_SIZE_OFFSET + namesLength);
        return fixed * 31 + names;
    }
}
