package dev.offcache.demo;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;

import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;

/**
 * The demo's sample dataset: {@value #FILES} Parquet files of {@value #ROWS_PER_FILE} rows each under
 * {@value #PREFIX}, the same bytes on every run (a fixed seed), small enough to generate in a few seconds and large
 * enough for several row groups and column chunks per file. Columns: {@code id} (int64, unique), {@code day}
 * (int32, 0-29), {@code country} (string, 8 values), {@code amount} (double, 0-1000).
 */
public final class SampleDataset
{
    /** Where the files go in the bucket. */
    public static final String PREFIX = "events/";
    /** How many files. */
    public static final int FILES = 4;
    /** Rows in each file. */
    public static final int ROWS_PER_FILE = 250_000;
    /** The country values, in the order a row's index picks them. */
    static final String[] COUNTRIES = {"FR", "DE", "US", "JP", "BR", "IN", "NG", "AU"};

    private static final MessageType SCHEMA = MessageTypeParser.parseMessageType(
        "message event { required int64 id; required int32 day; required binary country (UTF8); " +
        "required double amount; }");

    private SampleDataset()
    {
    }

    /**
     * Writes the files and returns their contents by object key.
     *
     * @param scratch a directory for the files while they are written (deleted after).
     * @return key ({@code events/part-0000N.parquet}) → bytes, in order.
     * @throws IOException when a file cannot be written.
     */
    public static Map<String, byte[]> generate(final Path scratch) throws IOException
    {
        final Map<String, byte[]> files = new LinkedHashMap<>();
        final SimpleGroupFactory groups = new SimpleGroupFactory(SCHEMA);
        for (int f = 0; f < FILES; f++)
        {
            final Path file = scratch.resolve(String.format("part-%05d.parquet", f));
            Files.deleteIfExists(file);
            final SplittableRandom random = new SplittableRandom(1000 + f);
            try (ParquetWriter<Group> writer = ExampleParquetWriter.builder(new LocalOutputFile(file))
                .withType(SCHEMA)
                .withCompressionCodec(CompressionCodecName.SNAPPY)
                .withRowGroupSize(1L << 20)
                .build())
            {
                for (int r = 0; r < ROWS_PER_FILE; r++)
                {
                    final long id = (long) f * ROWS_PER_FILE + r;
                    writer.write(groups.newGroup()
                        .append("id", id)
                        .append("day", (int) (id % 30))
                        .append("country", COUNTRIES[(int) (id % COUNTRIES.length)])
                        .append("amount", Math.floor(random.nextDouble() * 100_000) / 100));
                }
            }
            files.put(PREFIX + file.getFileName(), Files.readAllBytes(file));
            Files.delete(file);
        }
        return files;
    }
}
