package dev.offcache.core.shuffle;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import dev.offcache.core.checksum.Crc32c;

import static java.nio.ByteOrder.LITTLE_ENDIAN;

/**
 * The on-disk format of a committed partition file: the data bytes, then a fixed {@value #FOOTER_LENGTH}-byte
 * footer (little-endian):
 *
 * <pre>
 *   0  int  magic        0x5053434F ("OCSP")
 *   4  int  version      1
 *   8  long dataLength   bytes before the footer
 *  16  int  dataCrc32c   CRC32C of the data bytes
 *  20  int  footerCrc32c CRC32C of footer bytes [0, 20)
 * </pre>
 *
 * The footer sits at the end so the writer can stream data of unknown length and add it last; the footer's own
 * checksum makes a flipped length or CRC field a detected corruption rather than a wrong answer.
 */
final class PartitionFile
{
    static final int MAGIC = 0x5053434F;
    static final int VERSION = 1;
    static final int FOOTER_LENGTH = 24;
    static final String DATA_SUFFIX = ".data";
    static final String TEMP_SUFFIX = ".tmp";

    static final int MAGIC_OFFSET = 0;
    static final int VERSION_OFFSET = 4;
    static final int DATA_LENGTH_OFFSET = 8;
    static final int DATA_CRC_OFFSET = 16;
    static final int FOOTER_CRC_OFFSET = 20;

    private PartitionFile()
    {
    }

    static void encodeFooter(final MutableDirectBuffer buffer, final int offset, final long dataLength, final int crc)
    {
        buffer.putInt(offset + MAGIC_OFFSET, MAGIC, LITTLE_ENDIAN);
        buffer.putInt(offset + VERSION_OFFSET, VERSION, LITTLE_ENDIAN);
        buffer.putLong(offset + DATA_LENGTH_OFFSET, dataLength, LITTLE_ENDIAN);
        buffer.putInt(offset + DATA_CRC_OFFSET, crc, LITTLE_ENDIAN);
        buffer.putInt(offset + FOOTER_CRC_OFFSET, Crc32c.compute(buffer, offset, FOOTER_CRC_OFFSET), LITTLE_ENDIAN);
    }

    /**
     * Checks a footer against the file it ends and returns the data length it records.
     *
     * @param path     of the file, for the message.
     * @param fileSize of the file.
     * @param footer   buffer holding the last {@value #FOOTER_LENGTH} bytes of the file.
     * @param offset   of the footer in {@code footer}.
     * @return the data length.
     * @throws CorruptPartitionException naming the file and the failed check.
     */
    static long checkFooter(final Path path, final long fileSize, final DirectBuffer footer, final int offset)
    {
        final int magic = footer.getInt(offset + MAGIC_OFFSET, LITTLE_ENDIAN);
        if (magic != MAGIC)
        {
            throw new CorruptPartitionException(path, String.format(
                "no footer magic at the end of the file (found 0x%08x, expected 0x%08x): truncated or not a " +
                "partition file", magic, MAGIC));
        }
        final int footerCrc = footer.getInt(offset + FOOTER_CRC_OFFSET, LITTLE_ENDIAN);
        final int computedFooterCrc = Crc32c.compute(footer, offset, FOOTER_CRC_OFFSET);
        if (footerCrc != computedFooterCrc)
        {
            throw new CorruptPartitionException(path, String.format(
                "footer checksum mismatch (stored 0x%08x, computed 0x%08x)", footerCrc, computedFooterCrc));
        }
        final int version = footer.getInt(offset + VERSION_OFFSET, LITTLE_ENDIAN);
        if (version != VERSION)
        {
            throw new CorruptPartitionException(path, "unsupported format version " + version + " (supported: " +
                VERSION + ")");
        }
        final long dataLength = footer.getLong(offset + DATA_LENGTH_OFFSET, LITTLE_ENDIAN);
        if (dataLength != fileSize - FOOTER_LENGTH)
        {
            throw new CorruptPartitionException(path, "footer records " + dataLength + " data bytes but the file " +
                "holds " + (fileSize - FOOTER_LENGTH) + " before its footer (file size " + fileSize + ")");
        }
        return dataLength;
    }

    static int dataCrc(final DirectBuffer footer, final int offset)
    {
        return footer.getInt(offset + DATA_CRC_OFFSET, LITTLE_ENDIAN);
    }

    /**
     * Makes a rename or delete in a directory durable (POSIX: fsync the directory itself).
     */
    static void forceDirectory(final Path directory) throws IOException
    {
        try (FileChannel channel = FileChannel.open(directory, StandardOpenOption.READ))
        {
            channel.force(true);
        }
    }
}
