package dev.offcache.hadoop.fs;

import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.util.functional.FutureIO;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.offcache.embed.JvmCaches;
import dev.offcache.embed.L2Bridge;
import dev.offcache.range.l2.shard.ShardedL2Client;
import dev.offcache.testkit.s3.OriginCounters;
import dev.offcache.testkit.s3.S3ProxyServer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The Hadoop adapter reading through real L2 servers ({@code cache-server} in this JVM on 127.0.0.1) in front of the
 * same S3Proxy bucket S3A reads, counted at the origin (the blob store behind S3Proxy): L1 → L2 → S3A, bytes exact; a
 * second JVM-level cache (a fresh L1) reads warm from L2 with no origin request; files outside the L2 root never go
 * to L2; a file rewritten with another length is not served from the servers' old copy; killing servers lowers the
 * hit rate and never fails a read. Also a server in front of a local directory for {@code file:} paths.
 */
class OffcacheL2Test
{
    private static final String LAKE = "l2lake";
    private static final String KEY = "l2-test-key-0123456789";
    private static final int FILES = 8;

    private static S3ProxyServer proxy;
    private static L2Server serverA;
    private static L2Server serverB;

    @TempDir
    java.nio.file.Path dir;

    @BeforeAll
    static void startServers() throws Exception
    {
        proxy = OffcacheS3AContract.proxy();
        proxy.createBucket(LAKE);
        serverA = L2Server.overS3(proxy, LAKE, KEY, 64);
        serverB = L2Server.overS3(proxy, LAKE, KEY, 64);
    }

    @AfterAll
    static void stopServers()
    {
        serverA.close();
        serverB.close();
    }

    @AfterEach
    void closeCaches()
    {
        JvmCaches.closeAll();
    }

    /** S3A on the proxy, offcache registered for s3a, L2 on the given servers for s3a://l2lake/. */
    private static Configuration conf(final int l1Mb, final L2Server... servers) throws IOException
    {
        final Configuration conf = OffcacheS3AContract.configure(new Configuration());
        conf.set("offcache.l1.mb", Integer.toString(l1Mb));
        final StringBuilder urls = new StringBuilder();
        for (final L2Server server : servers)
        {
            urls.append(urls.length() == 0 ? "" : ",").append(server.url());
        }
        conf.set("offcache.l2.servers", urls.toString());
        conf.set("offcache.l2.api.key", KEY);
        conf.set("offcache.l2.locations", "s3a://" + LAKE + "/");
        // The machine is shared with other builds: a slow answer must not be mistaken for a dead server here.
        conf.set("offcache.l2.abandon.timeout.ms", "10000");
        return conf;
    }

    private static FileSystem fs(final Configuration conf) throws IOException
    {
        return FileSystem.get(URI.create("s3a://" + LAKE + "/"), conf);
    }

    private static List<byte[]> writeFiles(final FileSystem fs, final String dir, final int count) throws IOException
    {
        final List<byte[]> files = new ArrayList<>();
        for (int i = 0; i < count; i++)
        {
            final byte[] data = new byte[150_000 + 7919 * i];
            new Random(dir.hashCode() * 31L + i).nextBytes(data);
            try (FSDataOutputStream out = fs.create(new Path("s3a://" + LAKE + "/" + dir + "/part-" + i + ".bin"),
                true))
            {
                out.write(data);
            }
            files.add(data);
        }
        return files;
    }

    private static List<FileStatus> statuses(final FileSystem fs, final String dir, final int count)
        throws IOException
    {
        final List<FileStatus> statuses = new ArrayList<>();
        for (int i = 0; i < count; i++)
        {
            statuses.add(fs.getFileStatus(new Path("s3a://" + LAKE + "/" + dir + "/part-" + i + ".bin")));
        }
        return statuses;
    }

    /** Reads every file whole with the status the engine already has (no HEAD), checking every byte. */
    private static void readAll(final FileSystem fs, final List<FileStatus> statuses, final List<byte[]> files)
        throws IOException
    {
        for (int i = 0; i < files.size(); i++)
        {
            final FileStatus status = statuses.get(i);
            assertArrayEquals(files.get(i), read(fs, status.getPath(), status), status.getPath().toString());
        }
    }

    private static byte[] read(final FileSystem fs, final Path path, final FileStatus status) throws IOException
    {
        try (FSDataInputStream in = FutureIO.awaitFuture(fs.openFile(path).withFileStatus(status).build()))
        {
            final byte[] got = new byte[(int) status.getLen()];
            in.readFully(0, got);
            return got;
        }
    }

    /**
     * A directory whose {@code count} files the servers share between them: the servers listen on free ports, which
     * seed their rendezvous weights, so a fixed set of names may all land on one server (1 run in 128 for 8 files).
     */
    private static String spreadDirectory(final L2Bridge l2, final int count)
    {
        final ShardedL2Client sharded = assertInstanceOf(ShardedL2Client.class, l2.client());
        for (int attempt = 0; attempt < 1000; attempt++)
        {
            final String dir = attempt == 0 ? "warm" : "warm-" + attempt;
            final Set<String> owners = new HashSet<>();
            for (int i = 0; i < count; i++)
            {
                owners.add(sharded.ownerOf(dir + "/part-" + i + ".bin").id());
            }
            if (owners.size() > 1)
            {
                return dir;
            }
        }
        throw new AssertionError("no directory of " + count + " files spreads over the servers: " + l2);
    }

    private static L2Bridge bridge(final FileSystem fs)
    {
        final L2Bridge l2 = ((OffcacheFileSystem) fs).sharedCache().l2();
        assertNotNull(l2, "offcache.l2.servers makes an L2 server");
        return l2;
    }

    @Test
    void readsGoThroughL2AndAFreshL1ReadsWarmFromL2WithNoOriginRequest() throws Exception
    {
        final Configuration conf = conf(16, serverA, serverB);
        final List<byte[]> files;
        final List<FileStatus> statuses;
        try (FileSystem fs = fs(conf))
        {
            final String dir = spreadDirectory(bridge(fs), FILES);
            files = writeFiles(fs, dir, FILES);
            statuses = statuses(fs, dir, FILES);
            final OriginCounters origin = proxy.counters();
            origin.reset();
            final long aBefore = serverA.blockRequests();
            final long bBefore = serverB.blockRequests();
            readAll(fs, statuses, files);
            final L2Bridge l2 = bridge(fs);
            assertTrue(origin.gets() > 0, "cold: the servers read the files from S3: " + origin);
            assertTrue(l2.hits() > 0 && l2.fallbacks() == 0 && l2.unverified() == 0, l2.toString());
            assertEquals(l2.reads(), l2.hits(), l2.toString());
            assertEquals(((OffcacheFileSystem) fs).sharedCache().originBytes(), l2.bytes(),
                "every L1 miss was served by L2");
            assertTrue(serverA.blockRequests() > aBefore && serverB.blockRequests() > bBefore,
                "the files are spread over both servers");
        }
        JvmCaches.closeAll();
        final OriginCounters origin = proxy.counters();
        origin.reset();
        try (FileSystem fs = fs(conf))
        {
            // the stream's own counters: its blocks came from L2 in one request (one run), nothing from S3
            final FileStatus first = statuses.get(0);
            try (FSDataInputStream in =
                FutureIO.awaitFuture(fs.openFile(first.getPath()).withFileStatus(first).build()))
            {
                final byte[] got = new byte[(int) first.getLen()];
                in.readFully(0, got);
                assertArrayEquals(files.get(0), got);
                final Map<String, Long> c = in.getIOStatistics().counters();
                final long blocks = (first.getLen() + (16 << 10) - 1) / (16 << 10);
                assertEquals(List.of(blocks, 1L, 1L, first.getLen(), 0L, 0L),
                    List.of(c.get(StreamStatistics.L1_MISSES), c.get(StreamStatistics.FETCH_REQUESTS),
                        c.get(StreamStatistics.L2_HITS), c.get(StreamStatistics.L2_BYTES),
                        c.get(StreamStatistics.ORIGIN_REQUESTS), c.get(StreamStatistics.ORIGIN_BYTES)),
                    c.toString());
            }
            readAll(fs, statuses, files);
            final L2Bridge l2 = bridge(fs);
            assertEquals(0, origin.gets(), "a fresh L1 reads warm from L2: " + origin);
            assertEquals(0, origin.heads(), "no HEAD either (the status is passed, L2 knows the sizes): " + origin);
            assertTrue(l2.hits() > 0 && l2.fallbacks() == 0, l2.toString());
            long total = 0;
            for (final byte[] file : files)
            {
                total += file.length;
            }
            assertEquals(total, l2.bytes(), "each byte came from L2 once");
        }
    }

    @Test
    void filesOutsideTheL2RootNeverGoToL2() throws Exception
    {
        final Configuration conf = conf(16, serverA, serverB);
        final Path other = new Path("s3a://" + OffcacheS3AContract.BUCKET + "/not-l2/part-0.bin");
        try (FileSystem fs = FileSystem.get(URI.create("s3a://" + OffcacheS3AContract.BUCKET + "/"), conf))
        {
            final byte[] data = new byte[100_000];
            new Random(5).nextBytes(data);
            try (FSDataOutputStream out = fs.create(other, true))
            {
                out.write(data);
            }
            final long aBefore = serverA.blockRequests();
            final long bBefore = serverB.blockRequests();
            assertArrayEquals(data, read(fs, other, fs.getFileStatus(other)));
            final L2Bridge l2 = bridge(fs);
            assertTrue(l2.unmapped() > 0, l2.toString());
            assertEquals(0, l2.reads(), l2.toString());
            assertEquals(aBefore, serverA.blockRequests());
            assertEquals(bBefore, serverB.blockRequests());
        }
    }

    @Test
    void aFileRewrittenWithAnotherLengthIsNotServedFromTheServersOldCopy() throws Exception
    {
        final Configuration conf = conf(16, serverA, serverB);
        final Path path = new Path("s3a://" + LAKE + "/rewritten/part-0.bin");
        try (FileSystem fs = fs(conf))
        {
            final byte[] first = new byte[120_000];
            new Random(1).nextBytes(first);
            try (FSDataOutputStream out = fs.create(path, true))
            {
                out.write(first);
            }
            assertArrayEquals(first, read(fs, path, fs.getFileStatus(path)));
            assertTrue(bridge(fs).hits() > 0, "the servers now hold the first version and its size");
            final byte[] second = new byte[90_000];
            new Random(2).nextBytes(second);
            try (FSDataOutputStream out = fs.create(path, true))
            {
                out.write(second);
            }
            final FileStatus status = fs.getFileStatus(path);
            assertEquals(second.length, status.getLen());
            final L2Bridge l2 = bridge(fs);
            final long hits = l2.hits();
            assertArrayEquals(second, read(fs, path, status), "the new version, not the servers' old bytes");
            assertEquals(1, l2.sizeMismatches(), l2.toString());
            assertEquals(hits, l2.hits(), "nothing of the new version came from L2");
            assertArrayEquals(second, read(fs, path, status));
            assertEquals(1, l2.sizeMismatches(), "the verdict is remembered: " + l2);
        }
    }

    @Test
    void killedServersLowerTheHitRateButNeverFailARead() throws Exception
    {
        final L2Server serverC = L2Server.overS3(proxy, LAKE, KEY, 64);
        final L2Server serverD = L2Server.overS3(proxy, LAKE, KEY, 64);
        try
        {
            // No L1 (pass-through): every read goes to L2 or the origin, so the kills are felt by every read.
            final Configuration conf = conf(0, serverC, serverD);
            try (FileSystem fs = fs(conf))
            {
                final List<byte[]> files = writeFiles(fs, "killed", FILES);
                final List<FileStatus> statuses = statuses(fs, "killed", FILES);
                readAll(fs, statuses, files);
                final L2Bridge l2 = bridge(fs);
                assertTrue(l2.hits() > 0 && l2.fallbacks() == 0, l2.toString());

                final AtomicBoolean stop = new AtomicBoolean();
                final AtomicInteger reads = new AtomicInteger();
                final ExecutorService readers = Executors.newFixedThreadPool(2);
                final List<Future<?>> running = new ArrayList<>();
                for (int t = 0; t < 2; t++)
                {
                    final long seed = t;
                    running.add(readers.submit(() ->
                    {
                        final Random random = new Random(seed);
                        while (!stop.get())
                        {
                            final int i = random.nextInt(FILES);
                            final FileStatus status = statuses.get(i);
                            final int at = random.nextInt((int) status.getLen() - 1);
                            final int n = 1 + random.nextInt((int) Math.min(64 << 10, status.getLen() - at));
                            try (FSDataInputStream in =
                                FutureIO.awaitFuture(fs.openFile(status.getPath()).withFileStatus(status).build()))
                            {
                                final byte[] got = new byte[n];
                                in.readFully(at, got);
                                assertArrayEquals(Arrays.copyOfRange(files.get(i), at, at + n), got,
                                    status.getPath() + " at " + at);
                            }
                            reads.incrementAndGet();
                        }
                        return null;
                    }));
                }
                awaitReads(reads, 20);
                serverD.close();
                final long hitsAfterOneKill = l2.hits();
                awaitReads(reads, reads.get() + 40);
                serverC.close();
                awaitReads(reads, reads.get() + 40);
                stop.set(true);
                for (final Future<?> reader : running)
                {
                    reader.get(60, TimeUnit.SECONDS);
                }
                readers.shutdown();
                assertTrue(l2.fallbacks() + l2.unverified() > 0, "reads of the killed servers' files fell back: " +
                    l2);
                assertTrue(l2.hits() >= hitsAfterOneKill, l2.toString());

                final long hits = l2.hits();
                readAll(fs, statuses, files);
                assertEquals(hits, l2.hits(), "both servers dead: nothing from L2, every byte right: " + l2);
            }
        }
        finally
        {
            serverC.close();
            serverD.close();
        }
    }

    private static void awaitReads(final AtomicInteger reads, final int atLeast) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (reads.get() < atLeast)
        {
            if (System.nanoTime() > deadline)
            {
                throw new AssertionError("readers stuck at " + reads.get() + " reads (wanted " + atLeast + ")");
            }
            Thread.sleep(5);
        }
    }

    @Test
    void aServerInFrontOfALocalDirectoryServesFilePaths() throws Exception
    {
        final java.nio.file.Path lake = java.nio.file.Files.createDirectories(dir.resolve("lake/t"));
        final byte[] data = new byte[200_000];
        new Random(3).nextBytes(data);
        java.nio.file.Files.write(lake.resolve("part-0.bin"), data);
        try (L2Server server = L2Server.overDirectory(dir.resolve("lake"), KEY, 64))
        {
            final Configuration conf = new Configuration(false);
            conf.set("fs.file.impl", OffcacheFileSystem.class.getName());
            conf.setBoolean("fs.file.impl.disable.cache", true);
            conf.set("offcache.fs.file.impl", CountingLocalFileSystem.class.getName());
            conf.set("offcache.l1.mb", "4");
            conf.set("offcache.block.size", "16K");
            conf.set("offcache.l2.servers", server.url().toString());
            conf.set("offcache.l2.api.key", KEY);
            conf.set("offcache.l2.locations", dir.resolve("lake").toUri().toString());
            conf.set("offcache.l2.abandon.timeout.ms", "10000");
            try (FileSystem fs = FileSystem.get(URI.create("file:///"), conf))
            {
                final Path path = new Path(lake.resolve("part-0.bin").toUri());
                final FileStatus status = fs.getFileStatus(path);
                CountingLocalFileSystem.reset();
                assertArrayEquals(data, read(fs, path, status));
                assertEquals(0, CountingLocalFileSystem.OPENS.get(), "the server read the file, not the adapter");
                assertTrue(server.originGets() > 0);
                assertEquals(data.length, bridge(fs).bytes());
            }
        }
    }
}
