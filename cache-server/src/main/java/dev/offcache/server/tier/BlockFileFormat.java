package dev.offcache.server.tier;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

import dev.offcache.core.checksum.Crc32c;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The self-describing block file of the SSD tier: a fixed {@value #HEADER_LENGTH}-byte header, then the block's
 * bytes at a page-aligned offset (so the data can be sent with {@code sendfile} or read with direct I/O).
 *
 * <pre>
 *   0  int    magic "OCBK" (0x4B42434F, little-endian)
 *   4  short  format version ({@value #VERSION})
 *   6  short  reserved (0)
 *   8  long   block index
 *  16  int    data length
 *  20  int    CRC32C of the data
 *  24  long   sequence number (publication order, used for capacity eviction)
 *  32  short  namespace UTF-8 length
 *  34  short  object key UTF-8 length
 *  36  int    CRC32C of bytes [0, 36) and [40, 48 + names)
 *  40  long   the object's size, or -1 when it was not known (objects are write-once, so a size never changes)
 *  48  bytes  namespace, then object key (UTF-8)
 * </pre>
 *
 * A header is only trusted when its magic, version and own CRC check out; data is only trusted when its CRC does.
 */
public final class BlockFileFormat
{
    /** File magic, "OCBK" read as a little-endian int. */
    public static final int MAGIC = 0x4B42434F;
    /** The format version this code writes and reads. */
    public static final short VERSION = 2;
    /** Bytes before the data: one page. */
    public static final int HEADER_LENGTH = 4096;

    private static final int VERSION_OFFSET = 4;
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
     */
    public record Header(ObjectName name, long blockIndex, int length, int crc, long sequence, long objectSize)
    {
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
        buffer.putInt(0, MAGIC);
        buffer.putShort(VERSION_OFFSET, VERSION);
        buffer.putLong(BLOCK_INDEX_OFFSET, header.blockIndex());
        buffer.putInt(DATA_LENGTH_OFFSET, header.length());
        buffer.putInt(DATA_CRC_OFFSET, header.crc());
        buffer.putLong(SEQUENCE_OFFSET, header.sequence());
        buffer.putLong(OBJECT_SIZE_OFFSET, header.objectSize());
        buffer.putShort(NAMESPACE_LENGTH_OFFSET, (short) namespace.length);
        buffer.putShort(KEY_LENGTH_OFFSET, (short) key.length);
        buffer.put(NAMES_OFFSET, namespace);
        buffer.put(NAMES_OFFSET + namespace.length, key);
        buffer.putInt(HEADER_CRC_OFFSET, headerCrc(buffer, namespace.length + key.length));
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
        if (version != VERSION)
        {
            throw new BadHeaderException(Problem.UNKNOWN_VERSION, "unknown block format version " + version);
        }
        final int namespaceLength = buffer.getShort(NAMESPACE_LENGTH_OFFSET) & 0xFFFF;
        final int keyLength = buffer.getShort(KEY_LENGTH_OFFSET) & 0xFFFF;
        if (NAMES_OFFSET + namespaceLength + keyLength > Math.min(buffer.limit(), HEADER_LENGTH))
        {
            throw new BadHeaderException(Problem.CORRUPT, "name lengths overflow the header");
        }
        if (buffer.getInt(HEADER_CRC_OFFSET) != headerCrc(buffer, namespaceLength + keyLength))
        {
            throw new BadHeaderException(Problem.CORRUPT, "header CRC mismatch");
        }
        final int length = buffer.getInt(DATA_LENGTH_OFFSET);
        if (length <= 0 || HEADER_LENGTH + (long) length != fileLength)
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
        return new Header(
            name,
            buffer.getLong(BLOCK_INDEX_OFFSET),
            length,
            buffer.getInt(DATA_CRC_OFFSET),
            buffer.getLong(SEQUENCE_OFFSET),
            objectSize);
    }

    private static int headerCrc(final ByteBuffer buffer, final int namesLength)
    {
        final UnsafeBuffer view = new UnsafeBuffer(buffer.array());
        final int fixed = Crc32c.compute(view, 0, HEADER_CRC_OFFSET);
        final int names = Crc32c.compute(view, OBJECT_SIZE_OFFSET, NAMES_OFFSET - OBJECT_SIZE_OFFSET + namesLength);
        return fixed * 31 + names;
    }
}
