package dev.offcache.benchmarks.l1;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.offcache.core.slab.BlockRef;
import dev.offcache.range.ram.RamBlockStore;
import dev.offcache.range.policy.EvictionPolicy;
import dev.offcache.range.policy.LruPolicy;
import dev.offcache.range.policy.PolicyKind;
import dev.offcache.range.policy.WindowTinyLfuPolicy;
import dev.offcache.range.store.BlockKeys;
import dev.offcache.range.store.FetchClass;
import org.agrona.concurrent.UnsafeBuffer;
import org.tukaani.xz.XZInputStream;

/**
 * Hit ratios of the L1 eviction policy beside LRU and Caffeine at several cache sizes, on the cache2k access traces
 * and on a synthetic block workload. A hit ratio is a count, not a timing, so this is a plain program, not a JMH
 * benchmark:
 *
 * <pre>
 * java -cp jmh-benchmarks/target/benchmarks.jar dev.offcache.benchmarks.l1.HitRatioSimulation [traceDir [results]]
 * </pre>
 *
 * <p>{@code traceDir} defaults to {@code /work/shared/traces/cache2k}. Besides the Markdown table it writes the miss
 * ratios as a measurement file for {@code offcache-perf} ({@code docs/perf-reports.md}, "Measurement files") to
 * {@code results} (default {@value #DEFAULT_RESULTS} in the working directory): {@code offcache} is the
 * {@link RamBlockStore} column with the default (adaptive) hit recording, the baselines our LRU and Caffeine
 * (Caffeine's admission is randomised, so it runs {@value #CAFFEINE_RUNS} times and the file holds every run).
 * Columns: our W-TinyLFU policy driven directly; the same policy behind the real {@link RamBlockStore} (4 KiB slots,
 * accesses recorded through its lossy buffer), once with every hit recorded and once with the default recording (every
 * miss; every hit while puts have left credit, about one in {@value RamBlockStore.Context#DEFAULT_HIT_SAMPLING} in long
 * runs of hits beyond it); our LRU; Caffeine {@code maximumSize} (same-thread executor). Every access of a miss is
 * followed by an insert, as a cache-aside reader would do. Trace attribution: the cache2k traces are copyrighted by
 * headissue GmbH (Jens Wilke) and used under CC BY 4.0.
 */
public final class HitRatioSimulation
{
    private static final int STORE_BLOCK = 4096;
    private static final String DEFAULT_RESULTS = "hit-ratio-simulation.json";
    private static final String DEFAULT_TRACES = "/work/shared/traces/cache2k";
    private static final int CAFFEINE_RUNS = 3;
    private static final List<String> RESULTS = new ArrayList<>();

    private HitRatioSimulation()
    {
    }

    /**
     * Runs every trace at every size and prints a Markdown table.
     *
     * @param args optional trace directory.
     * @throws IOException if a trace cannot be read.
     */
    public static void main(final String[] args) throws IOException
    {
        final Path traceDir = Path.of(args.length > 0 ? args[0] : DEFAULT_TRACES);
        final Path results = Path.of(args.length > 1 ? args[1] : DEFAULT_RESULTS);
        final String loadAtStart = loadAverage();
        final String startedAt = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
        System.out.println("| workload | accesses | distinct | capacity | W-TinyLFU (ours) " +
            "| RamBlockStore, every hit " +
            "| RamBlockStore, default recording | LRU (ours) | Caffeine |");
        System.out.println("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
        final String[][] traces = {
            {"web07", "500,1000,2000,4000"},
            {"web12", "500,1000,2000,4000"},
            {"orm-busy", "2500,5000,10000,20000"},
            {"orm-night", "2500,5000,10000,20000"},
        };
        for (final String[] trace : traces)
        {
            final Path file = traceDir.resolve(trace[0] + ".trace.xz");
            if (!Files.exists(file))
            {
                System.out.println("| " + trace[0] + " | missing: " + file + " | | | | | | | |");
                continue;
            }
            final long[] keys = readTrace(file);
            for (final String size : trace[1].split(","))
            {
                row(trace[0], keys, Integer.parseInt(size));
            }
        }
        final long[] synthetic = syntheticBlockWorkload(1_000_000, 42);
        for (final int blocks : new int[] {100, 200, 400, 800})
        {
            row("synthetic blocks", synthetic, blocks);
        }
        System.out.println();
        System.out.println("cache2k traces: (c) headissue GmbH, Jens Wilke, CC BY 4.0.");
        writeResults(results, args, startedAt, loadAtStart);
        System.out.println("measurement file: " + results);
    }

    static void row(final String name, final long[] keys, final int capacity)
    {
        final double tinyLfu = simulate(new WindowTinyLfuPolicy(capacity), keys);
        final double everyHit = simulateStore(PolicyKind.WINDOW_TINY_LFU, capacity, keys, 1);
        final double sampled = simulateStore(
            PolicyKind.WINDOW_TINY_LFU, capacity, keys, RamBlockStore.Context.DEFAULT_HIT_SAMPLING);
        final double lru = simulate(new LruPolicy(capacity), keys);
        final double[] caffeine = new double[CAFFEINE_RUNS];
        for (int run = 0; run < CAFFEINE_RUNS; run++)
        {
            caffeine[run] = simulateCaffeine(capacity, keys);
        }
        System.out.println(String.format(Locale.ROOT,
            "| %s | %d | %d | %d | %.2f%% | %.2f%% | %.2f%% | %.2f%% | %.2f%% |",
            name, keys.length, Arrays.stream(keys).distinct().count(), capacity,
            tinyLfu * 100, everyHit * 100, sampled * 100, lru * 100, caffeine[0] * 100));
        final String caseName = name + ", " + capacity + (name.startsWith("synthetic") ? " blocks" : " entries");
        RESULTS.add(missRatio(caseName, "offcache", exact(percent(1 - sampled))));
        RESULTS.add(missRatio(caseName, "lru", exact(percent(1 - lru))));
        final StringBuilder runs = new StringBuilder("\"values\": [");
        for (int run = 0; run < CAFFEINE_RUNS; run++)
        {
            runs.append(run == 0 ? "" : ", ").append(percent(1 - caffeine[run]));
        }
        RESULTS.add(missRatio(caseName, "caffeine", runs.append(']').toString()));
    }

    /** One entry of the measurement file: every miss is an origin read, so the miss ratio is what to compare. */
    private static String missRatio(final String caseName, final String impl, final String value)
    {
        return "    {\"case\": \"" + caseName + "\", \"metric\": \"miss ratio\", \"unit\": \"%\", " +
            "\"better\": \"lower\", \"impl\": \"" + impl + "\", " + value + "}";
    }

    /** A deterministic count is exact: its interval is the value itself, so any difference decides. */
    private static String exact(final String value)
    {
        return "\"value\": " + value + ", \"low\": " + value + ", \"high\": " + value;
    }

    private static String percent(final double ratio)
    {
        return String.format(Locale.ROOT, "%.4f", ratio * 100);
    }

    /** Writes the measurement file (format offcache-measurements/1, docs/perf-reports.md). */
    private static void writeResults(final Path file, final String[] args, final String startedAt,
        final String loadAtStart) throws IOException
    {
        final String command = "java --add-opens java.base/jdk.internal.misc=ALL-UNNAMED -cp " +
            "jmh-benchmarks/target/benchmarks.jar " + HitRatioSimulation.class.getName() +
            (args.length > 0 ? " " + String.join(" ", args) : "");
        final String json = "{\n" +
            "  \"format\": \"offcache-measurements/1\",\n" +
            "  \"suite\": \"l1.HitRatioSimulation\",\n" +
            "  \"title\": \"Miss ratios (each miss is an origin read) of the RAM block store's W-TinyLFU " +
            "policy beside " +
            "LRU and Caffeine, on the cache2k traces (capacities in entries) and a synthetic Parquet-like block " +
            "workload (capacities in blocks); miss ratio = 100% - hit ratio.\",\n" +
            "  \"command\": \"" + command + "\",\n" +
            "  \"startedAt\": \"" + startedAt + "\",\n" +
            "  \"load\": {\"start\": \"" + loadAtStart + "\", \"end\": \"" + loadAverage() + "\"},\n" +
            "  \"notes\": [\"Counts, not timings: the figures do not depend on the machine or its load. offcache " +
            "and LRU are deterministic, so their values are exact (low = high); Caffeine's admission is " +
            "randomised, so it ran " + CAFFEINE_RUNS + " times and its interval is the runs' range. cache2k " +
            "traces (c) headissue GmbH, Jens Wilke, CC BY 4.0.\"],\n" +
            "  \"measurements\": [\n" + String.join(",\n", RESULTS) + "\n  ]\n}\n";
        Files.writeString(file, json);
    }

    private static String loadAverage()
    {
        try
        {
            final String[] fields = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return fields.length >= 3 ? fields[0] + " " + fields[1] + " " + fields[2] : "unknown";
        }
        catch (final IOException ex)
        {
            return "unknown";
        }
    }

    /**
     * Hit ratio of a policy driven directly: record the access; on a miss, make room and insert.
     *
     * @param policy the policy, empty.
     * @param keys   the access sequence.
     * @return hits / accesses.
     */
    public static double simulate(final EvictionPolicy policy, final long[] keys)
    {
        long hits = 0;
        for (final long key : keys)
        {
            policy.recordAccess(key);
            if (policy.contains(key))
            {
                hits++;
            }
            else
            {
                if (policy.size() == policy.capacity())
                {
                    policy.evict();
                }
                policy.add(key, false);
            }
        }
        return (double) hits / keys.length;
    }

    static double simulateStore(final PolicyKind kind, final int capacity, final long[] keys, final int hitSampling)
    {
        final UnsafeBuffer block = new UnsafeBuffer(new byte[STORE_BLOCK]);
        long hits = 0;
        try (RamBlockStore store = new RamBlockStore(new RamBlockStore.Context()
            .blockSize(STORE_BLOCK).capacityBytes((long) capacity * STORE_BLOCK).policy(kind).hitSampling(hitSampling)))
        {
            for (final long key : keys)
            {
                final BlockRef ref = store.acquire(key);
                if (ref != null)
                {
                    hits++;
                    ref.release();
                }
                else
                {
                    store.put(key, block, 0, STORE_BLOCK, FetchClass.DEMAND);
                }
            }
        }
        return (double) hits / keys.length;
    }

    static double simulateCaffeine(final int capacity, final long[] keys)
    {
        final Cache<Long, Boolean> cache = Caffeine.newBuilder()
            .maximumSize(capacity)
            .executor(Runnable::run)
            .build();
        long hits = 0;
        for (final long key : keys)
        {
            if (cache.getIfPresent(key) != null)
            {
                hits++;
            }
            else
            {
                cache.put(key, Boolean.TRUE);
            }
        }
        return (double) hits / keys.length;
    }

    /**
     * Reads an xz-compressed cache2k trace: big-endian 32-bit keys, one per access, as unsigned longs.
     *
     * @param file the {@code .trace.xz} file.
     * @return the keys.
     * @throws IOException if the file cannot be read.
     */
    public static long[] readTrace(final Path file) throws IOException
    {
        final List<long[]> chunks = new ArrayList<>();
        long[] chunk = new long[1 << 16];
        int inChunk = 0;
        int total = 0;
        try (InputStream raw = Files.newInputStream(file);
            DataInputStream in = new DataInputStream(new BufferedInputStream(new XZInputStream(raw), 1 << 16)))
        {
            while (true)
            {
                final int key;
                try
                {
                    key = in.readInt();
                }
                catch (final EOFException ex)
                {
                    break;
                }
                if (inChunk == chunk.length)
                {
                    chunks.add(chunk);
                    chunk = new long[chunk.length];
                    inChunk = 0;
                }
                chunk[inChunk++] = Integer.toUnsignedLong(key);
                total++;
            }
        }
        chunks.add(Arrays.copyOf(chunk, inChunk));
        final long[] keys = new long[total];
        int at = 0;
        for (final long[] part : chunks)
        {
            final int n = Math.min(part.length, total - at);
            System.arraycopy(part, 0, keys, at, n);
            at += n;
        }
        return keys;
    }

    /**
     * A query-engine-like block workload over 400 Parquet objects of 64 blocks each. Each query picks an object
     * (Zipf, s = 0.9), reads its footer (the last block), then 4 column-chunk blocks (Zipf over the block index, so
     * some columns are hot); one query in 20 is instead a full scan of a uniformly chosen object, footer first.
     *
     * @param accesses how many block accesses to generate.
     * @param seed     the random seed.
     * @return packed block keys.
     */
    public static long[] syntheticBlockWorkload(final int accesses, final long seed)
    {
        final int objects = 400;
        final int blocksPerObject = 64;
        final ZipfKeys objectPopularity = new ZipfKeys(objects, 0.9, seed);
        final ZipfKeys columnPopularity = new ZipfKeys(blocksPerObject - 1, 1.0, seed + 1);
        final Random random = new Random(seed + 2);
        final long[] keys = new long[accesses];
        int n = 0;
        while (n < accesses)
        {
            if (random.nextInt(20) == 0)
            {
                final int object = random.nextInt(objects);
                keys[n++] = BlockKeys.pack(object, blocksPerObject - 1);
                for (int b = 0; b < blocksPerObject - 1 && n < accesses; b++)
                {
                    keys[n++] = BlockKeys.pack(object, b);
                }
            }
            else
            {
                final int object = objectPopularity.next();
                keys[n++] = BlockKeys.pack(object, blocksPerObject - 1);
                for (int c = 0; c < 4 && n < accesses; c++)
                {
                    keys[n++] = BlockKeys.pack(object, columnPopularity.next());
                }
            }
        }
        return keys;
    }
}
