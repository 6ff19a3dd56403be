package dev.offcache.benchmarks.engine;

import java.io.IOException;
import java.lang.reflect.Method;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnReader;
import org.apache.parquet.column.impl.ColumnReadStoreImpl;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.example.data.simple.convert.GroupRecordConverter;
import org.apache.parquet.filter2.compat.FilterCompat;
import org.apache.parquet.filter2.predicate.FilterApi;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.hadoop.util.HadoopStreams;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.io.SeekableInputStream;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;
import org.apache.hadoop.util.functional.FutureIO;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import dev.offcache.embed.JvmCaches;
import dev.offcache.hadoop.fs.OffcacheFileSystem;

/**
 * A Parquet column scan as an engine runs it: parquet-mr reads 3 of the 6 columns of every row group of one file,
 * with a filter and a sum, through a Hadoop {@link FileSystem} opened with the file's status (as Spark passes it).
 * Values are decoded with parquet-mr's column readers, a value at a time without materialising records (the way
 * vectorised engine readers consume pages), so the decode floor is small beside the I/O the caches differ in;
 * every scan's sum is checked against the local file's. The origin is a local file behind
 * {@link LatencyFileSystem}: every GET and every metadata call waits {@code latencyMs}, like an object store.
 * Implementations:
 * <ul>
 * <li>{@code offcache}: {@link OffcacheFileSystem} over the origin, L1 of {@code 2 × fileMiB};</li>
 * <li>{@code alluxio}: Alluxio 2.9.4's {@code LocalCacheFileSystem} over the origin, the same capacity in its
 * memory page store (1 MiB pages), as Presto/Trino users run it;</li>
 * <li>{@code plain}: the origin itself, no cache;</li>
 * <li>{@code floor}: the local file with no latency and no cache: the decode floor.</li>
 * </ul>
 * {@code warm} scans a cache filled by a previous scan; {@code cold} empties it before every scan. The counters give
 * the origin GETs, bytes and metadata calls with the number of scans they came from.
 *
 * <p>Small defaults (the build's smoke run narrows them further to {@code -p fileMiB=2 -p cache=cold}); the issue's
 * figures: {@code -p fileMiB=100 -p latencyMs=5,20}. {@code blockKib} is offcache's block size.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class ParquetScanBenchmark
{
    private static final MessageType SCHEMA = MessageTypeParser.parseMessageType("message trip { required int64 id; " +
        "required binary city (UTF8); required double fare; required double tip; required double distance; " +
        "required binary note; }");
    private static final MessageType PROJECTION = MessageTypeParser.parseMessageType(
        "message trip { required int64 id; required double fare; required double distance; }");
    private static final ColumnDescriptor ID = PROJECTION.getColumnDescription(new String[] {"id"});
    private static final ColumnDescriptor FARE = PROJECTION.getColumnDescription(new String[] {"fare"});
    private static final ColumnDescriptor DISTANCE = PROJECTION.getColumnDescription(new String[] {"distance"});
    private static final double FARE_ABOVE = 40.0;

    /** offcache, or a baseline: alluxio, plain, floor. */
    @Param({"offcache", "alluxio", "plain", "floor"})
    public String impl;

    /** warm (cache filled) or cold (emptied before each scan). */
    @Param({"warm", "cold"})
    public String cache;

    /** Origin latency per GET and per metadata call, milliseconds. */
    @Param("5")
    public int latencyMs;

    /** File size, MiB. */
    @Param("8")
    public int fileMiB;

    /** offcache's block size, KiB ({@code offcache.block.size}; 256 is the adapters' default). */
    @Param("256")
    public int blockKib;

    private Path file;
    private Path alluxioDir;
    private Configuration conf;
    private FileSystem fs;
    private FileStatus status;
    private double expected;
    private ParquetReadOptions options;

    /**
     * What the origin served, summed over the scans of an iteration (JMH sums these over the iterations too):
     * per scan = {@code originGets / scans}, and likewise for the others.
     */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.EVENTS)
    public static class Origin
    {
        /** Scans. */
        public long scans;
        /** GETs. */
        public long originGets;
        /** Bytes, KiB. */
        public long originKib;
        /** Status/list calls. */
        public long metadataCalls;

        /**
         * Clears the counters per iteration.
         */
        @Setup(Level.Iteration)
        public void clear()
        {
            scans = 0;
            originGets = 0;
            originKib = 0;
            metadataCalls = 0;
        }
    }

    /**
     * Writes the file (once per size, kept in the temp directory) and builds the file system under test.
     *
     * @throws Exception on failure.
     */
    @Setup(Level.Trial)
    public void setUp() throws Exception
    {
        file = dataFile(fileMiB);
        options = readOptions();
        conf = new Configuration(false);
        conf.setLong(LatencyFileSystem.LATENCY_MS, latencyMs);
        conf.set("offcache.fs.file.impl", LatencyFileSystem.class.getName());
        conf.set("offcache.l1.mb", Integer.toString(2 * fileMiB));
        conf.set("offcache.block.size", blockKib + "K");
        alluxioDir = Files.createTempDirectory("offcache-bench-alluxio");
        fs = newFileSystem();
        status = fs.getFileStatus(new org.apache.hadoop.fs.Path(file.toUri()));
        try (RawLocalFileSystem local = new RawLocalFileSystem())
        {
            local.initialize(URI.create("file:///"), new Configuration(false));
            expected = scan(local, local.getFileStatus(new org.apache.hadoop.fs.Path(file.toUri())), options);
        }
        if ("warm".equals(cache))
        {
            scan();
        }
    }

    /**
     * Empties the cache before a cold scan (not timed).
     *
     * @throws Exception on failure.
     */
    @Setup(Level.Invocation)
    public void emptyCache() throws Exception
    {
        if ("cold".equals(cache) && ("offcache".equals(impl) || "alluxio".equals(impl)))
        {
            fs.close();
            fs = newFileSystem();
        }
    }

    /**
     * Closes the file system and the caches.
     *
     * @throws Exception on failure.
     */
    @TearDown(Level.Trial)
    public void tearDown() throws Exception
    {
        fs.close();
        JvmCaches.closeAll();
        resetAlluxio();
        try (java.util.stream.Stream<Path> files = Files.walk(alluxioDir))
        {
            files.sorted(java.util.Comparator.reverseOrder()).forEach((path) -> path.toFile().delete());
        }
    }

    /**
     * One scan.
     *
     * @param origin what the origin served.
     * @return the scan's checksum.
     * @throws Exception on failure.
     */
    @Benchmark
    public double scan(final Origin origin) throws Exception
    {
        final long gets = LatencyFileSystem.GETS.get();
        final long bytes = LatencyFileSystem.BYTES.get();
        final long metadata = LatencyFileSystem.METADATA.get();
        final double sum = scan();
        if (sum != expected)
        {
            throw new IllegalStateException(impl + " scanned " + sum + ", the local file gives " + expected);
        }
        origin.scans++;
        origin.originGets += LatencyFileSystem.GETS.get() - gets;
        origin.originKib += (LatencyFileSystem.BYTES.get() - bytes) >> 10;
        origin.metadataCalls += LatencyFileSystem.METADATA.get() - metadata;
        return sum;
    }

    private double scan() throws IOException
    {
        return scan(fs, status, options);
    }

    /**
     * The read options, made once per trial as an engine makes them from its job's configuration: a
     * {@code ParquetReadOptions.builder()} per scan would parse Hadoop's default XML resources on every scan (a new
     * {@code Configuration}), a cost that is neither decoding nor I/O and that grows with the resources the JVM
     * happens to have registered (MapReduce's {@code JobConf} adds two).
     */
    private static ParquetReadOptions readOptions()
    {
        // The filter prunes row groups by their statistics; rows are filtered below, as a vectorised reader does.
        final FilterCompat.Filter filter = FilterCompat.get(FilterApi.gt(FilterApi.doubleColumn("fare"), FARE_ABOVE));
        return ParquetReadOptions.builder().withRecordFilter(filter).build();
    }

    private static double scan(final FileSystem fs, final FileStatus status, final ParquetReadOptions options)
        throws IOException
    {
        double sum = 0;
        try (ParquetFileReader reader = ParquetFileReader.open(new StatusInputFile(fs, status), options))
        {
            reader.setRequestedSchema(PROJECTION);
            final String createdBy = reader.getFileMetaData().getCreatedBy();
            PageReadStore pages;
            while ((pages = reader.readNextRowGroup()) != null)
            {
                final ColumnReadStoreImpl columns = new ColumnReadStoreImpl(pages,
                    new GroupRecordConverter(PROJECTION).getRootConverter(), PROJECTION, createdBy);
                final ColumnReader ids = columns.getColumnReader(ID);
                final ColumnReader fares = columns.getColumnReader(FARE);
                final ColumnReader distances = columns.getColumnReader(DISTANCE);
                // Every column is required and flat: one value per row in each reader.
                for (long i = 0, rows = pages.getRowCount(); i < rows; i++)
                {
                    final double fare = fares.getDouble();
                    fares.consume();
                    final long id = ids.getLong();
                    ids.consume();
                    final double distance = distances.getDouble();
                    distances.consume();
                    if (fare > FARE_ABOVE)
                    {
                        sum += distance + (id & 1);
                    }
                }
            }
        }
        return sum;
    }

    private FileSystem newFileSystem() throws Exception
    {
        final URI root = URI.create("file:///");
        switch (impl)
        {
            case "offcache":
            {
                JvmCaches.closeAll();
                final OffcacheFileSystem offcache = new OffcacheFileSystem();
                offcache.initialize(root, conf);
                return offcache;
            }
            case "alluxio":
            {
                resetAlluxio();
                final LatencyFileSystem origin = new LatencyFileSystem();
                origin.initialize(root, conf);
                final Configuration alluxio = new Configuration(conf);
                alluxio.set("alluxio.user.client.cache.enabled", "true");
                alluxio.set("alluxio.user.client.cache.store.type", "MEM");
                alluxio.set("alluxio.user.client.cache.dirs", alluxioDir.toString());
                alluxio.set("alluxio.user.client.cache.size", (2 * fileMiB) + "MB");
                alluxio.set("alluxio.user.client.cache.page.size", "1MB");
                alluxio.set("alluxio.user.client.cache.async.write.enabled", "false");
                alluxio.set("alluxio.user.client.cache.async.restore.enabled", "false");
                alluxio.set("alluxio.user.client.cache.quota.enabled", "false");
                alluxio.set("alluxio.user.client.cache.shadow.enabled", "false");
                final FileSystem local = (FileSystem) Class.forName("alluxio.hadoop.LocalCacheFileSystem")
                    .getConstructor(FileSystem.class).newInstance(origin);
                local.initialize(root, alluxio);
                return local;
            }
            case "plain":
            {
                final LatencyFileSystem origin = new LatencyFileSystem();
                origin.initialize(root, conf);
                return origin;
            }
            case "floor":
            {
                final RawLocalFileSystem local = new RawLocalFileSystem();
                local.initialize(root, conf);
                return local;
            }
            default:
                throw new IllegalArgumentException("unknown impl " + impl);
        }
    }

    /** Alluxio keeps one page cache per JVM, made by the first initialize(): forget it between cold scans. */
    private static void resetAlluxio() throws Exception
    {
        try
        {
            final Method clear = Class.forName("alluxio.client.file.cache.CacheManager$Factory")
                .getDeclaredMethod("clear");
            clear.setAccessible(true);
            clear.invoke(null);
        }
        catch (final ClassNotFoundException ex)
        {
            throw new IllegalStateException("Alluxio is not on the class path", ex);
        }
    }

    private static Path dataFile(final int mib) throws IOException
    {
        final Path dir = Path.of(System.getProperty("java.io.tmpdir"), "offcache-bench-parquet-scan");
        Files.createDirectories(dir);
        final Path path = dir.resolve("trips-" + mib + "MiB.parquet");
        if (Files.exists(path))
        {
            return path;
        }
        final Path temp = Files.createTempFile(dir, "trips-", ".tmp");
        Files.delete(temp);
        final long rows = (long) mib * (1 << 20) / 64;
        final Random random = new Random(42);
        final SimpleGroupFactory groups = new SimpleGroupFactory(SCHEMA);
        final byte[] note = new byte[16];
        try (ParquetWriter<Group> writer = ExampleParquetWriter.builder(new LocalOutputFile(temp)).withType(SCHEMA)
            .withCompressionCodec(CompressionCodecName.UNCOMPRESSED).withRowGroupSize(8L << 20)
            .withDictionaryEncoding("note", false).build())
        {
            for (long i = 0; i < rows; i++)
            {
                random.nextBytes(note);
                writer.write(groups.newGroup().append("id", i).append("city", "city-" + (i % 97))
                    .append("fare", random.nextDouble() * 100).append("tip", random.nextDouble() * 20)
                    .append("distance", random.nextDouble() * 30)
                    .append("note", org.apache.parquet.io.api.Binary.fromConstantByteArray(note.clone())));
            }
        }
        Files.move(temp, path);
        return path;
    }

    /** A Parquet input file opened through a given file system with the status the engine already has. */
    private static final class StatusInputFile implements InputFile
    {
        private final FileSystem fs;
        private final FileStatus status;

        StatusInputFile(final FileSystem fs, final FileStatus status)
        {
            this.fs = fs;
            this.status = status;
        }

        @Override
        public long getLength()
        {
            return status.getLen();
        }

        @Override
        public SeekableInputStream newStream() throws IOException
        {
            return HadoopStreams.wrap(FutureIO.awaitFuture(fs.openFile(status.getPath()).withFileStatus(status)
                .build()));
        }
    }
}
