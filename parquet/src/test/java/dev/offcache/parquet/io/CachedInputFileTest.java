package dev.offcache.parquet.io;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;

import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.example.data.simple.convert.GroupRecordConverter;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.io.ColumnIOFactory;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.io.RecordReader;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.offcache.embed.CacheKeys;
import dev.offcache.embed.CacheSettings;
import dev.offcache.embed.JvmCaches;
import dev.offcache.embed.LocalFileOrigin;
import dev.offcache.embed.SharedCache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Real Parquet files (parquet-mr's writer) read by parquet-mr's reader through {@link CachedInputFile}, with and
 * without vectored reads: the same rows and sums as reading the file directly; the second read fetches nothing and
 * parses no footer; a broken cache still reads.
 */
class CachedInputFileTest
{
    private static final MessageType SCHEMA = MessageTypeParser.parseMessageType(
        "message trip { required int64 id; required binary city (UTF8); required double fare; }");

    @TempDir
    Path dir;

    @AfterEach
    void close()
    {
        JvmCaches.closeAll();
    }

    private Path write(final int rows) throws IOException
    {
        final Path path = dir.resolve("trips.parquet");
        final SimpleGroupFactory groups = new SimpleGroupFactory(SCHEMA);
        try (ParquetWriter<Group> writer = ExampleParquetWriter.builder(new LocalOutputFile(path))
            .withType(SCHEMA).withRowGroupSize(256L * 1024).withPageSize(16 * 1024).build())
        {
            for (int i = 0; i < rows; i++)
            {
                writer.write(groups.newGroup().append("id", (long) i).append("city", "city-" + (i % 17))
                    .append("fare", i * 0.25));
            }
        }
        return path;
    }

    private static double[] scan(final ParquetFileReader reader) throws IOException
    {
        final MessageType schema = reader.getFooter().getFileMetaData().getSchema();
        double ids = 0;
        double fares = 0;
        long rows = 0;
        PageReadStore pages;
        while ((pages = reader.readNextRowGroup()) != null)
        {
            final RecordReader<Group> records = new ColumnIOFactory().getColumnIO(schema)
                .getRecordReader(pages, new GroupRecordConverter(schema));
            for (long i = 0; i < pages.getRowCount(); i++)
            {
                final Group g = records.read();
                ids += g.getLong("id", 0);
                fares += g.getDouble("fare", 0);
                rows++;
            }
        }
        return new double[] {rows, ids, fares};
    }

    private static double[] scanDirect(final InputFile file, final boolean vectored) throws IOException
    {
        try (ParquetFileReader reader = ParquetFileReader.open(file,
            ParquetReadOptions.builder().withUseHadoopVectoredIo(vectored).build()))
        {
            return scan(reader);
        }
    }

    @Test
    void rowsEqualTheDirectReadAndTheWarmReadFetchesAndParsesNothing() throws Exception
    {
        final Path path = write(60_000);
        final SharedCache shared = JvmCaches.get(new CacheSettings(16L << 20, 64 << 10, 1L << 20, 4));
        shared.router().register(CacheKeys.prefix(URI.create("file:///")), new LocalFileOrigin());
        final double[] expected = scanDirect(new LocalInputFile(path), false);
        assertEquals(60_000, expected[0]);
        final long size = Files.size(path);
        for (final boolean vectored : new boolean[] {true, false})
        {
            for (int round = 0; round < 2; round++)
            {
                final long originBefore = shared.originBytes();
                final CachedInputFile file = CachedInputFile.of(shared, path.toUri(), size,
                    CacheKeys.mtimeVersion(Files.getLastModifiedTime(path).toMillis()));
                try (ParquetFileReader reader = file.openReader(
                    ParquetReadOptions.builder().withUseHadoopVectoredIo(vectored).build()))
                {
                    final double[] got = scan(reader);
                    assertEquals(expected[0], got[0]);
                    assertEquals(expected[1], got[1]);
                    assertEquals(expected[2], got[2]);
                }
                if (round == 1 || !vectored)
                {
                    assertEquals(originBefore, shared.originBytes(), "warm: nothing fetched");
                }
                else
                {
                    assertTrue(shared.originBytes() - originBefore <= size, "cold: each byte at most once");
                }
            }
            assertEquals(1, shared.footers().parses(), "the footer was parsed once for every open");
        }
        assertEquals(expected[0], scanDirect(CachedInputFile.of(shared, path.toUri(), size, CacheKeys.LENGTH_ONLY),
            true)[0], "parquet-mr reading its own footer through the stream gets the same rows");
    }

    @Test
    void aBrokenCacheStillReads() throws Exception
    {
        final Path path = write(20_000);
        final SharedCache shared = JvmCaches.get(new CacheSettings(16L << 20, 64 << 10, 1L << 20, 4));
        shared.router().register(CacheKeys.prefix(URI.create("file:///")), new LocalFileOrigin());
        final CachedInputFile file = CachedInputFile.of(shared, path.toUri(), Files.size(path), CacheKeys.LENGTH_ONLY);
        final double[] expected = scanDirect(new LocalInputFile(path), true);
        try (ParquetFileReader reader = file.openReader(ParquetReadOptions.builder().withUseHadoopVectoredIo(true)
            .build()))
        {
            shared.cache().close();
            // Closing the engine closed its origin too (the router forgets its sources); the file's source is
            // still there for the fallback, as it is when only the cache breaks.
            shared.router().register(CacheKeys.prefix(URI.create("file:///")), new LocalFileOrigin());
            final double[] got = scan(reader);
            assertEquals(expected[1], got[1], "the closed cache fails every read; the source serves them");
        }
    }
}
