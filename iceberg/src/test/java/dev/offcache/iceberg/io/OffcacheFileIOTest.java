package dev.offcache.iceberg.io;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.nio.file.Path;
import java.util.Map;

import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericAppenderFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileAppender;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.RangeReadable;
import org.apache.iceberg.io.SeekableInputStream;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.offcache.embed.JvmCaches;
import dev.offcache.embed.SharedCache;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A real Iceberg table (HadoopCatalog on a local warehouse, Parquet data files written by Iceberg's generic
 * appender) read through {@link OffcacheFileIO} configured as the catalog's {@code io-impl}: the same rows as the
 * plain FileIO; the second scan reads nothing from the origin; a serialized copy reads the same JVM cache warm.
 */
class OffcacheFileIOTest
{
    private static final Schema SCHEMA = new Schema(
        Types.NestedField.required(1, "id", Types.LongType.get()),
        Types.NestedField.required(2, "city", Types.StringType.get()),
        Types.NestedField.required(3, "fare", Types.DoubleType.get()));

    @TempDir
    Path warehouse;

    @AfterEach
    void close()
    {
        JvmCaches.closeAll();
    }

    private HadoopCatalog catalog(final boolean offcache)
    {
        final HadoopCatalog catalog = new HadoopCatalog();
        catalog.setConf(new Configuration());
        final Map<String, String> props = offcache ?
            Map.of(CatalogProperties.WAREHOUSE_LOCATION, warehouse.toUri().toString(),
                CatalogProperties.FILE_IO_IMPL, OffcacheFileIO.class.getName(), "offcache.l1.mb", "16",
                "offcache.block.size", "64K") :
            Map.of(CatalogProperties.WAREHOUSE_LOCATION, warehouse.toUri().toString());
        catalog.initialize(offcache ? "cached" : "plain", props);
        return catalog;
    }

    private static void append(final Table table, final int file, final int rows) throws Exception
    {
        final OutputFile out = table.io().newOutputFile(table.location() + "/data/part-" + file + ".parquet");
        final FileAppender<Record> appender = new GenericAppenderFactory(table.schema()).newAppender(out,
            FileFormat.PARQUET);
        try (appender)
        {
            for (int i = 0; i < rows; i++)
            {
                final GenericRecord record = GenericRecord.create(table.schema());
                record.setField("id", (long) (file * 1_000_000 + i));
                record.setField("city", "city-" + (i % 23));
                record.setField("fare", i * 0.5);
                appender.add(record);
            }
        }
        final DataFile data = DataFiles.builder(PartitionSpec.unpartitioned()).withInputFile(out.toInputFile())
            .withMetrics(appender.metrics()).withFormat(FileFormat.PARQUET).build();
        table.newAppend().appendFile(data).commit();
    }

    private static double[] scan(final Table table) throws Exception
    {
        double rows = 0;
        double ids = 0;
        double fares = 0;
        try (CloseableIterable<Record> records = IcebergGenerics.read(table).build())
        {
            for (final Record record : records)
            {
                rows++;
                ids += (Long) record.getField("id");
                fares += (Double) record.getField("fare");
            }
        }
        return new double[] {rows, ids, fares};
    }

    @Test
    void aTableReadThroughTheCacheEqualsThePlainReadAndTheSecondScanFetchesNothing() throws Exception
    {
        final TableIdentifier id = TableIdentifier.of(Namespace.of("db"), "trips");
        try (HadoopCatalog plain = catalog(false))
        {
            final Table table = plain.createTable(id, SCHEMA);
            for (int f = 0; f < 3; f++)
            {
                append(table, f, 30_000);
            }
        }
        final double[] expected;
        try (HadoopCatalog plain = catalog(false))
        {
            expected = scan(plain.loadTable(id));
        }
        assertEquals(90_000, expected[0]);
        try (HadoopCatalog cached = catalog(true))
        {
            final Table table = cached.loadTable(id);
            assertInstanceOf(OffcacheFileIO.class, table.io());
            final OffcacheFileIO io = (OffcacheFileIO) table.io();
            final SharedCache shared = io.sharedCache();
            final double[] cold = scan(table);
            assertArrayEquals(expected, cold);
            final long originAfterCold = shared.originBytes();
            assertTrue(originAfterCold > 0, "the cold scan read data files and manifests through the cache");
            assertArrayEquals(expected, scan(table));
            assertEquals(originAfterCold, shared.originBytes(), "warm: no byte of a cached file read again");

            final FileIO copy = roundTrip(io);
            assertSame(shared, ((OffcacheFileIO) copy).sharedCache(), "the copy finds this JVM's cache");
            final DataFile first = table.currentSnapshot().addedDataFiles(io).iterator().next();
            final InputFile file = copy.newInputFile(first.location(), first.fileSizeInBytes());
            try (SeekableInputStream in = file.newStream())
            {
                assertInstanceOf(RangeReadable.class, in);
                final byte[] tail = new byte[8];
                assertEquals(8, ((RangeReadable) in).readTail(tail, 0, 8));
                assertEquals("PAR1", new String(tail, 4, 4, java.nio.charset.StandardCharsets.US_ASCII));
            }
            assertEquals(originAfterCold, shared.originBytes(), "the copy read the cached tail");
        }
    }

    private static FileIO roundTrip(final FileIO io) throws Exception
    {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes))
        {
            out.writeObject(io);
        }
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray())))
        {
            return (FileIO) in.readObject();
        }
    }
}
