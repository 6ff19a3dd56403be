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
 * The layout of a range-cache counters file, and a reader for it that another process can use while the engine
 * runs: a 64-byte header (magic, version, metadata length, values length), then Agrona counters metadata, then
 * the counter values. Memory: {@link #read(Path)} maps the file, copies the values out and unmaps it.
 */
public final class CountersFile
{
    /** Header bytes before the metadata. */
    public static final int HEADER_LENGTH = 64;
    /** Room for 64 counters. */
    public static final int VALUES_LENGTH = 64 * CountersReader.COUNTER_LENGTH;
    /** Agrona needs this much metadata for {@link #VALUES_LENGTH} of values. */
    public static final int METADATA_LENGTH = VALUES_LENGTH * (CountersReader.METADATA_LENGTH /
        CountersReader.COUNTER_LENGTH);
    /** "OFRC" in ASCII. */
    public static final int MAGIC = 0x4F465243;
    /** Layout version. */
    public static final int VERSION = 1;

    private CountersFile()
    {
    }

    /**
     * Reads every counter of a counters file by name.
     *
     * @param file the file a {@link RangeMetrics} maps.
     * @return name → value, in registration order.
     */
    public static Map<String, Long> read(final Path file)
    {
        final File f = file.toFile();
        final MappedByteBuffer mapping = IoUtil.mapExistingFile(f, "range-cache counters");
        try
        {
            final UnsafeBuffer whole = new UnsafeBuffer(mapping);
            if (whole.capacity() < HEADER_LENGTH || whole.getInt(0) != MAGIC || whole.getInt(4) != VERSION)
            {
                throw new IllegalArgumentException("not a range-cache counters file: " + file);
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

    static void writeHeader(final UnsafeBuffer whole)
    {
        whole.putInt(0, MAGIC);
        whole.putInt(4, VERSION);
        whole.putInt(8, METADATA_LENGTH);
        whole.putInt(12, VALUES_LENGTH);
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
