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
 * The on-disk format of a committed partition file: the data bytes, then a footer that says what they are. The
 * footer is the partition's job id (ASCII, {@code jobIdLength} bytes) followed by a fixed
 * {@value #TRAILER_LENGTH}-byte trailer (little-endian):
 *
 * <pre>
 *   0  int  magic        0x5053434F ("OCSP")
 *   4  int  version      2
 *   8  long dataLength   bytes before the footer
 *  16  int  dataCrc32c   CRC32C of the data bytes
 *  20  int  stageId      the partition's identity: stage,
 *  24  int  partitionId  partition,
 *  28  int  jobIdLength  and the length of the job id just before the trailer (1..128)
 *  32  int  reserved     0
 *  36  int  footerCrc32c CRC32C of the job id bytes and trailer bytes [0, 36)
 * </pre>
 *
 * The footer sits at the end so the writer can stream data of unknown length and add it last; its own checksum
 * makes a flipped length, CRC or id field a detected corruption rather than a wrong answer, and the identity makes
 * a valid file of another partition (copied or renamed into the wrong place) a detected one too. Version 1 files
 * (a 24-byte footer without the identity) are refused with a message saying so.
 */
final class PartitionFile
{
    static final int MAGIC = 0x5053434F;
    static final int VERSION = 2;
    static final int TRAILER_LENGTH = 40;
    static final int LEGACY_FOOTER_LENGTH = 24;
    static final String DATA_SUFFIX = ".data";
    static final String TEMP_SUFFIX = ".tmp";

    static final int MAGIC_OFFSET = 0;
    static final int VERSION_OFFSET = 4;
    static final int DATA_LENGTH_OFFSET = 8;
    static final int DATA_CRC_OFFSET = 16;
    static final int STAGE_ID_OFFSET = 20;
    static final int PARTITION_ID_OFFSET = 24;
    static final int JOB_ID_LENGTH_OFFSET = 28;
    static final int RESERVED_OFFSET = 32;
    static final int FOOTER_CRC_OFFSET = 36;

    private PartitionFile()
    {
    }

    /**
     * The footer length of a partition: its job id plus the trailer.
     *
     * @param id of the partition.
     * @return bytes after the data.
     */
    static int footerLength(final PartitionId id)
    {
        return id.jobId().length() + TRAILER_LENGTH;
    }

    /**
     * Writes the footer at {@code offset}: the job id, then the trailer.
     *
     * @return the footer length.
     */
    static int encodeFooter(
        final MutableDirectBuffer buffer, final int offset, final PartitionId id, final long dataLength, final int crc)
    {
        final int jobIdLength = buffer.putStringWithoutLengthAscii(offset, id.jobId());
        final int trailer = offset + jobIdLength;
        buffer.putInt(trailer + MAGIC_OFFSET, MAGIC, LITTLE_ENDIAN);
        buffer.putInt(trailer + VERSION_OFFSET, VERSION, LITTLE_ENDIAN);
        buffer.putLong(trailer + DATA_LENGTH_OFFSET, dataLength, LITTLE_ENDIAN);
        buffer.putInt(trailer + DATA_CRC_OFFSET, crc, LITTLE_ENDIAN);
        buffer.putInt(trailer + STAGE_ID_OFFSET, id.stageId(), LITTLE_ENDIAN);
        buffer.putInt(trailer + PARTITION_ID_OFFSET, id.partitionId(), LITTLE_ENDIAN);
        buffer.putInt(trailer + JOB_ID_LENGTH_OFFSET, jobIdLength, LITTLE_ENDIAN);
        buffer.putInt(trailer + RESERVED_OFFSET, 0, LITTLE_ENDIAN);
        buffer.putInt(trailer + FOOTER_CRC_OFFSET, Crc32c.compute(buffer, offset, jobIdLength + FOOTER_CRC_OFFSET),
            LITTLE_ENDIAN);
        return jobIdLength + TRAILER_LENGTH;
    }

    /**
     * Checks the trailer (the last {@value #TRAILER_LENGTH} bytes of the file) and returns the length of the job id
     * that precedes it, so the caller can view the whole footer and {@link #checkFooter} it.
     *
     * @param path     of the file, for the message.
     * @param fileSize of the file.
     * @param trailer  buffer holding the file's last bytes.
     * @param offset   of the trailer in {@code trailer}.
     * @return the job id length.
     * @throws CorruptPartitionException naming the file and the failed check.
     */
    static int checkTrailer(final Path path, final long fileSize, final DirectBuffer trailer, final int offset)
    {
        final int magic = trailer.getInt(offset + MAGIC_OFFSET, LITTLE_ENDIAN);
        if (magic != MAGIC)
        {
            refuseLegacy(path, trailer, offset + TRAILER_LENGTH - LEGACY_FOOTER_LENGTH);
            throw new CorruptPartitionException(path, String.format(
                "no footer magic at the end of the file (found 0x%08x, expected 0x%08x): truncated or not a " +
                "partition file", magic, MAGIC));
        }
        final int jobIdLength = trailer.getInt(offset + JOB_ID_LENGTH_OFFSET, LITTLE_ENDIAN);
        if (jobIdLength < 1 || jobIdLength > PartitionId.MAX_JOB_ID_LENGTH ||
            jobIdLength > fileSize - TRAILER_LENGTH)
        {
            throw new CorruptPartitionException(path, "footer records a job id of " + jobIdLength +
                " bytes (allowed 1.." + PartitionId.MAX_JOB_ID_LENGTH + " in a file of " + fileSize + " bytes)");
        }
        return jobIdLength;
    }

    /**
     * Checks a whole footer (job id and trailer) against the file it ends and the partition expected there.
     *
     * @param path     of the file, for the message.
     * @param fileSize of the file.
     * @param footer   buffer holding the footer.
     * @param offset   of the footer (the job id's first byte) in {@code footer}.
     * @param expected the partition that should be in the file, or null to accept any.
     * @return the partition the footer names.
     * @throws CorruptPartitionException naming the file and the failed check.
     */
    static PartitionId checkFooter(
        final Path path, final long fileSize, final DirectBuffer footer, final int offset, final int jobIdLength,
        final PartitionId expected)
    {
        final int trailer = offset + jobIdLength;
        final int footerCrc = footer.getInt(trailer + FOOTER_CRC_OFFSET, LITTLE_ENDIAN);
        final int computedFooterCrc = Crc32c.compute(footer, offset, jobIdLength + FOOTER_CRC_OFFSET);
        if (footerCrc != computedFooterCrc)
        {
            throw new CorruptPartitionException(path, String.format(
                "footer checksum mismatch (stored 0x%08x, computed 0x%08x)", footerCrc, computedFooterCrc));
        }
        final int version = footer.getInt(trailer + VERSION_OFFSET, LITTLE_ENDIAN);
        if (version != VERSION)
        {
            throw new CorruptPartitionException(path, "unsupported format version " + version + " (supported: " +
                VERSION + ")");
        }
        final long dataLength = footer.getLong(trailer + DATA_LENGTH_OFFSET, LITTLE_ENDIAN);
        final long footerLength = (long) jobIdLength + TRAILER_LENGTH;
        if (dataLength != fileSize - footerLength)
        {
            throw new CorruptPartitionException(path, "footer records " + dataLength + " data bytes but the file " +
                "holds " + (fileSize - footerLength) + " before its " + footerLength + "-byte footer (file size " +
                fileSize + ")");
        }
        final PartitionId recorded;
        try
        {
            recorded = new PartitionId(footer.getStringWithoutLengthAscii(offset, jobIdLength),
                footer.getInt(trailer + STAGE_ID_OFFSET, LITTLE_ENDIAN),
                footer.getInt(trailer + PARTITION_ID_OFFSET, LITTLE_ENDIAN));
        }
        catch (final IllegalArgumentException ex)
        {
            throw new CorruptPartitionException(path, "footer names an invalid partition: " + ex.getMessage());
        }
        if (expected != null && !expected.equals(recorded))
        {
            throw new CorruptPartitionException(path, "the file holds partition " + recorded + ", not " + expected +
                ": a partition file in the wrong place");
        }
        return recorded;
    }

    /**
     * Refuses a version 1 footer (the format before partitions carried their identity) with a message saying so.
     *
     * @param tail offset of the file's last {@value #LEGACY_FOOTER_LENGTH} bytes in {@code buffer}.
     */
    static void refuseLegacy(final Path path, final DirectBuffer buffer, final int tail)
    {
        if (buffer.getInt(tail + MAGIC_OFFSET, LITTLE_ENDIAN) == MAGIC &&
            buffer.getInt(tail + VERSION_OFFSET, LITTLE_ENDIAN) == 1)
        {
            throw new CorruptPartitionException(path, "format version 1 (written by an older offcache, no " +
                "partition identity in its footer) is not supported: re-materialize the partition");
        }
    }

    static long dataLength(final DirectBuffer footer, final int trailerOffset)
    {
        return footer.getLong(trailerOffset + DATA_LENGTH_OFFSET, LITTLE_ENDIAN);
    }

    static int dataCrc(final DirectBuffer footer, final int trailerOffset)
    {
        return footer.getInt(trailerOffset + DATA_CRC_OFFSET, LITTLE_ENDIAN);
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
