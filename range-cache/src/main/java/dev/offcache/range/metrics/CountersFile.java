package dev.offcache.range.metrics;

import java.io.File;
import java.nio.MappedByteBuffer;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

import org.agrona.IoUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.CountersReader;

/**
 * The layout of an offcache counters file (the range engine's, the L2 client's, the L2 server's), and a reader for
 * it that another process can use while the writer runs: a 64-byte header (magic, version, metadata length, values
 * length), then Agrona counters metadata, then the counter values. The lengths in the header say how many counters
 * the file has room for, so a reader needs nothing else. Memory: {@link #read(Path)} maps the file, copies the
 * values out and unmaps it.
 */
public final class CountersFile
{
    /** Header bytes before the metadata. */
    public static final int HEADER_LENGTH = 64;
    /** Counters a region has room for unless its owner asks for more (the engine's and the L2 client's). */
    public static final int DEFAULT_COUNTERS = 64;
    /** "OFRC" in ASCII. */
    public static final int MAGIC = 0x4F465243;
    /** Layout version. */
    public static final int VERSION = 1;

    private CountersFile()
    {
    }

    /**
     * Bytes of the values of some counters.
     *
     * @param counters how many.
     * @return their values' length.
     */
    public static int valuesLength(final int counters)
    {
        return counters * CountersReader.COUNTER_LENGTH;
    }

    /**
     * Bytes of the metadata of some counters.
     *
     * @param counters how many.
     * @return their metadata's length.
     */
    public static int metadataLength(final int counters)
    {
        return counters * CountersReader.METADATA_LENGTH;
    }

    /**
     * Bytes of a whole file with room for some counters.
     *
     * @param counters how many.
     * @return header, metadata and values.
     */
    public static int fileLength(final int counters)
    {
        return HEADER_LENGTH + metadataLength(counters) + valuesLength(counters);
    }

    /**
     * Reads every counter of a counters file by name.
     *
     * @param file the file a {@link CountersRegion} maps (a {@link RangeMetrics}', an L2 client's, an L2 server's).
     * @return name → value, in registration order.
     */
    public static Map<String, Long> read(final Path file)
    {
        final File f = file.toFile();
        final MappedByteBuffer mapping = IoUtil.mapExistingFile(f, "offcache counters");
        try
        {
            final UnsafeBuffer whole = new UnsafeBuffer(mapping);
            if (whole.capacity() < HEADER_LENGTH || whole.getInt(0) != MAGIC || whole.getInt(4) != VERSION)
            {
                throw new IllegalArgumentException("not an offcache counters file: " + file);
            }
            final CountersReader reader = RangeMetrics.reader(whole);
            final Map<String, Long> values = new LinkedHashMap<>();
            reader.forEach((counterId, label) -> values.put(label, reader.getCounterValue(counterId)));
            return values;
        }
        finally
        {
            IoUtil.unmap(mapping);
        }
    }

    static void writeHeader(final UnsafeBuffer whole, final int counters)
    {
        whole.putInt(0, MAGIC);
        whole.putInt(4, VERSION);
        whole.putInt(8, metadataLength(counters));
        whole.putInt(12, valuesLength(counters));
    }

    static UnsafeBuffer metadata(final UnsafeBuffer whole)
    {
        return new UnsafeBuffer(whole, HEADER_LENGTH, whole.getInt(8));
    }

    static UnsafeBuffer values(final UnsafeBuffer whole)
    {
        return new UnsafeBuffer(whole, HEADER_LENGTH + whole.getInt(8), whole.getInt(12));
    }
}
