package dev.offcache.server.http;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.offcache.range.engine.RangeCache;
import dev.offcache.range.l2.FallbackReason;
import dev.offcache.range.l2.L2ClientContext;
import dev.offcache.range.l2.L2ClientCounters;
import dev.offcache.range.l2.L2Client;
import dev.offcache.range.origin.FileSystemOrigin;
import dev.offcache.range.testing.CountingOrigin;
import dev.offcache.server.tier.BlockFileFormat;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A byte of an SSD block file damaged on disk after the block's first check, read through a real server on 127.0.0.1
 * (256 KiB server blocks, so four 64 KiB chunks each, real block files): a whole block, a range crossing into the
 * block and 200 bytes inside it, through the L2 client ({@link L2Client}) and through an engine with 16 KiB blocks and
 * an L1 over that client (the same read again from L1), with the damaged byte at the block's first byte, in its middle
 * and at its last byte. No wrong byte reaches a caller or L1. A read of a part of the block is checked by the server
 * against the chunk CRCs recorded with the block: the mismatch is counted, the block file dropped, and the part read
 * from the origin in its place (one server origin GET, no client fallback). A whole block goes out from its file with
 * its recorded CRC and the client catches the damage (a {@code checksum} fallback to its own origin); the file is then
 * dropped by the scrub, and the next read refetches it through the server.
 */
class PartialBlockIntegrityTest
{
    private static final int BLOCK = 256 * 1024;
    private static final int ENGINE_BLOCK = 16 * 1024;
    private static final String KEY = "lake/part.bin";
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    /** Where in the block the damaged byte is. */
    private enum Where
    {
        START(0), MIDDLE(BLOCK / 2 + 100), END(BLOCK - 1);

        final int offset;

        Where(final int offset)
        {
            this.offset = offset;
        }
    }

    /** What the read covers of the damaged block. */
    private enum Shape
    {
        WHOLE, CROSSING, INSIDE
    }

    /** Who reads. */
    private enum Reader
    {
        CLIENT, ENGINE
    }

    @TempDir
    Path tmp;

    private byte[] object;
    private CountingOrigin clientOrigin;

    @Test
    void noDamagedByteReachesTheCallerOrL1AndEveryPartialMismatchIsRepairedFromTheOrigin() throws Exception
    {
        final int scenarios = Where.values().length * Shape.values().length * Reader.values().length;
        final int blocks = 3 * scenarios + 2;
        object = L2HttpServerTest.random(blocks * BLOCK, 33);
        final Path originDir = tmp.resolve("origin");
        Files.createDirectories(originDir.resolve("lake"));
        Files.write(originDir.resolve(KEY), object);
        try (ServerHarness harness = new ServerHarness(BLOCK, originDir, tmp.resolve("ssd"), 2, 64L * BLOCK,
            TransportKind.AUTO, 0, UnaryOperator.identity(), UnaryOperator.identity()))
        {
            harness.prefetchToSsd(KEY, object.length, blocks);
            // the first read checks every block file whole and marks it verified: from then on it is sent from its file
            final HttpResponse<byte[]> first = HTTP.send(HttpRequest.newBuilder(URI.create(harness.base() + "/obj/" +
                KEY)).header("Authorization", "Bearer " + ServerHarness.KEY).build(),
                HttpResponse.BodyHandlers.ofByteArray());
            assertArrayEquals(object, first.body());
            assertEquals(blocks, harness.store.ssd().blockCount());
            assertEquals(0, harness.store.metrics().ssdCorruptBlocks());

            int scenario = 0;
            int partialMismatches = 0;
            for (final Reader reader : Reader.values())
            {
                for (final Shape shape : Shape.values())
                {
                    for (final Where where : Where.values())
                    {
                        // blocks 2, 5, 8...: a crossing read's neighbour is never a damaged block
                        final int block = 2 + 3 * scenario++;
                        final String name = reader + " " + shape + " " + where + " (block " + block + ")";
                        readDamaged(harness, reader, shape, where, block, name);
                        if (shape != Shape.WHOLE)
                        {
                            partialMismatches++;
                        }
                        assertEquals(partialMismatches, harness.store.metrics().ssdChunkMismatches(),
                            name + ": every partial mismatch counted once");
                    }
                }
            }
        }
    }

    @Test
    void aRamSlotDamagedSinceItsFillNeverReachesTheClientOrL1() throws Exception
    {
        object = L2HttpServerTest.random(4 * BLOCK, 34);
        final Path originDir = tmp.resolve("origin");
        Files.createDirectories(originDir.resolve("lake"));
        Files.write(originDir.resolve(KEY), object);
        try (ServerHarness harness = new ServerHarness(BLOCK, originDir, tmp.resolve("ssd"), 8, 64L * BLOCK,
            TransportKind.AUTO, 0, UnaryOperator.identity(), UnaryOperator.identity()))
        {
            final HttpResponse<byte[]> first = HTTP.send(HttpRequest.newBuilder(URI.create(harness.base() + "/obj/" +
                KEY)).header("Authorization", "Bearer " + ServerHarness.KEY).build(),
                HttpResponse.BodyHandlers.ofByteArray());
            assertArrayEquals(object, first.body());
            final long blockKey = dev.offcache.range.store.BlockKeys.pack(objectId(harness), 1);
            assertTrue(harness.store.inRam(blockKey), "a demand read keeps the block in RAM");
            final int damaged = BLOCK / 2 + 100;
            final dev.offcache.core.slab.BlockRef slot = harness.store.acquireInMemory(blockKey);
            slot.buffer().putByte(damaged, (byte) (slot.buffer().getByte(damaged) ^ 0x5A));
            slot.release();
            final int serverGets = harness.origin.gets();

            // a part over the damaged chunk, a part of another chunk of the same block, the whole block
            final long[][] ranges = {{BLOCK + damaged - 100, 200}, {BLOCK + 1000, 200}, {BLOCK, BLOCK}};
            final int[] fallbacks = {1, 0, 1};
            final long[] damagedChunks = {1, 1, 1};
            for (int i = 0; i < ranges.length; i++)
            {
                clientOrigin = new CountingOrigin(new FileSystemOrigin(originDir, 2));
                try (L2Client client = client(harness, clientOrigin))
                {
                    assertBytes("range " + i, ranges[i], readThroughClient(client, ranges[i]));
                    assertEquals(fallbacks[i], client.metrics().readFallbacks(FallbackReason.CHECKSUM), "range " + i);
                    assertEquals(damagedChunks[i], harness.server.metrics().damagedRamChunks(), "range " + i);
                }
            }
            // through an engine with L1: the cold read and the same read from L1
            clientOrigin = new CountingOrigin(new FileSystemOrigin(originDir, 2));
            final L2Client client = client(harness, clientOrigin);
            try (RangeCache engine = RangeCache.newBuilder().origin(client).blockSize(ENGINE_BLOCK)
                .l1CapacityBytes(64L * ENGINE_BLOCK).build())
            {
                assertBytes("engine, cold", ranges[0], readThroughEngine(engine, ranges[0]));
                assertEquals(1, client.metrics().readFallbacks(FallbackReason.CHECKSUM));
                assertBytes("engine, from L1", ranges[0], readThroughEngine(engine, ranges[0]));
                assertEquals(1, client.metrics().readFallbacks(FallbackReason.CHECKSUM), "from L1: no read");
            }
            assertEquals(2, harness.server.metrics().damagedRamChunks());
            assertEquals(serverGets, harness.origin.gets(), "the server served everything from RAM");
        }
    }

    @Test
    void concurrentReadersOfPartsOfOneDamagedBlockAllGetTheOriginsBytesFromOneRefetch() throws Exception
    {
        object = L2HttpServerTest.random(6 * BLOCK, 35);
        final Path originDir = tmp.resolve("origin");
        Files.createDirectories(originDir.resolve("lake"));
        Files.write(originDir.resolve(KEY), object);
        try (ServerHarness harness = new ServerHarness(BLOCK, originDir, tmp.resolve("ssd"), 8, 64L * BLOCK,
            TransportKind.AUTO, 0, UnaryOperator.identity(), UnaryOperator.identity()))
        {
            harness.prefetchToSsd(KEY, object.length, 6);
            assertArrayEquals(object, HTTP.send(HttpRequest.newBuilder(URI.create(harness.base() + "/obj/" + KEY))
                .header("Authorization", "Bearer " + ServerHarness.KEY).build(),
                HttpResponse.BodyHandlers.ofByteArray()).body());
            for (int round = 0; round < 3; round++)
            {
                final int block = 1 + round;
                final Path file = fileOf(block);
                // one byte in each chunk: whatever part a reader asks for, it touches a damaged chunk
                for (int chunk = 0; chunk < 4; chunk++)
                {
                    flipByte(file, BlockFileFormat.HEADER_LENGTH + chunk * 65_536L + 333);
                }
                final int serverGets = harness.origin.gets();
                final long repairedBefore = harness.server.metrics().repairedChunks();
                final int readers = 8;
                final java.util.concurrent.CyclicBarrier start = new java.util.concurrent.CyclicBarrier(readers);
                final java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(
                    readers);
                final List<java.util.concurrent.Future<Integer>> results = new java.util.ArrayList<>();
                for (int r = 0; r < readers; r++)
                {
                    final int reader = r;
                    results.add(pool.submit(() -> readPartConcurrently(harness, originDir, block, reader, start)));
                }
                int wrong = 0;
                for (final java.util.concurrent.Future<Integer> result : results)
                {
                    wrong += result.get(60, TimeUnit.SECONDS);
                }
                pool.shutdown();
                assertEquals(0, wrong, "round " + round + ": wrong bytes");
                assertFalse(Files.exists(file), "round " + round + ": the block file is dropped");
                assertTrue(harness.server.metrics().repairedChunks() > repairedBefore, "round " + round);
                final List<CountingOrigin.Get> log = harness.origin.log();
                final long refetches = log.subList(serverGets, log.size()).stream()
                    .filter((get) -> get.offset() <= (long) block * BLOCK &&
                        get.offset() + get.length() >= (long) (block + 1) * BLOCK)
                    .count();
                assertEquals(1, refetches, "round " + round + ": one refetch for every reader: " + log);
            }
            assertEquals(0, harness.server.metrics().streamsAborted(), "no response was cut");
        }
    }

    /**
     * One reader of a part of {@code block}: a plain GET, a checksummed GET through the L2 client, or a vectored read
     * through it ({@code POST /ranges}), by {@code reader}; returns its wrong bytes.
     */
    private int readPartConcurrently(final ServerHarness harness, final Path originDir, final int block,
        final int reader, final java.util.concurrent.CyclicBarrier start) throws Exception
    {
        final long at = (long) block * BLOCK + 1000 + reader * 20_000L;
        final int length = 30_000 + reader * 3_000;
        final byte[] want = new byte[length];
        System.arraycopy(object, (int) at, want, 0, length);
        final byte[] got;
        start.await(30, TimeUnit.SECONDS);
        if (reader % 3 == 0)
        {
            got = HTTP.send(HttpRequest.newBuilder(URI.create(harness.base() + "/obj/" + KEY))
                .header("Authorization", "Bearer " + ServerHarness.KEY)
                .header("Range", "bytes=" + at + "-" + (at + length - 1)).build(),
                HttpResponse.BodyHandlers.ofByteArray()).body();
        }
        else
        {
            try (L2Client client = client(harness, new CountingOrigin(new FileSystemOrigin(originDir, 2))))
            {
                final ByteBuffer destination = ByteBuffer.allocateDirect(length);
                if (reader % 3 == 1)
                {
                    client.read(KEY, at, destination).get(30, TimeUnit.SECONDS);
                }
                else
                {
                    client.readVectored(KEY, new long[] {at}, new ByteBuffer[] {destination},
                        dev.offcache.range.store.FetchClass.DEMAND, null).get(30, TimeUnit.SECONDS);
                }
                assertEquals(0, client.metrics().readFallbacks(FallbackReason.CHECKSUM), "the server repaired it");
                got = new byte[length];
                destination.get(0, got);
            }
        }
        if (got.length != length)
        {
            return length;
        }
        int wrong = 0;
        for (int i = 0; i < length; i++)
        {
            wrong += want[i] == got[i] ? 0 : 1;
        }
        return wrong;
    }

    /** The engine's id of {@link #KEY} in the harness's server. */
    private static long objectId(final ServerHarness harness)
    {
        for (long id = 0; id < 1_000; id++)
        {
            if (KEY.equals(harness.cache.objectKey(id)))
            {
                return id;
            }
        }
        throw new AssertionError("no id for " + KEY);
    }

    private void readDamaged(final ServerHarness harness, final Reader reader, final Shape shape, final Where where,
        final int block, final String name) throws Exception
    {
        final Path file = fileOf(block);
        flipByte(file, BlockFileFormat.HEADER_LENGTH + where.offset);
        final long[] range = range(shape, where, block);
        final long corruptBefore = harness.store.metrics().ssdCorruptBlocks();
        final int serverGetsBefore = harness.origin.gets();
        clientOrigin = new CountingOrigin(new FileSystemOrigin(tmp.resolve("origin"), 2));
        final L2Client client = client(harness, clientOrigin);
        final boolean partial = shape != Shape.WHOLE;
        if (reader == Reader.CLIENT)
        {
            try (client)
            {
                assertBytes(name, range, readThroughClient(client, range));
                checkCounts(harness, name, partial, file, block, corruptBefore, serverGetsBefore, client.metrics());
            }
        }
        else
        {
            try (RangeCache engine = RangeCache.newBuilder().origin(client).blockSize(ENGINE_BLOCK)
                .l1CapacityBytes(64L * ENGINE_BLOCK).build())
            {
                assertBytes(name + ", cold", range, readThroughEngine(engine, range));
                checkCounts(harness, name, partial, file, block, corruptBefore, serverGetsBefore, client.metrics());
                final int clientGets = clientOrigin.gets();
                final int serverGets = harness.origin.gets();
                final long l2Bytes = client.metrics().get(L2ClientCounters.Counter.L2_BYTES);
                assertBytes(name + ", again from L1", range, readThroughEngine(engine, range));
                assertEquals(l2Bytes, client.metrics().get(L2ClientCounters.Counter.L2_BYTES), name + ": from L1");
                assertEquals(clientGets, clientOrigin.gets(), name + ": from L1");
                assertEquals(serverGets, harness.origin.gets(), name + ": from L1");
            }
        }
        if (!partial)
        {
            // the server sent the whole block from its file and left it: the scrub drops it, the next read refetches
            assertTrue(Files.exists(file), name + ": a whole block sent from its file is not read by the server");
            final ByteBuffer staging = ByteBuffer.allocateDirect(BLOCK);
            harness.store.ssd().scrub(Long.MAX_VALUE, new UnsafeBuffer(staging));
            BufferUtil.free(staging);
            assertFalse(Files.exists(file), name + ": the scrub dropped the damaged file");
            assertEquals(corruptBefore + 1, harness.store.metrics().ssdCorruptBlocks(), name);
            final int serverGets = harness.origin.gets();
            final CountingOrigin again = new CountingOrigin(new FileSystemOrigin(tmp.resolve("origin"), 2));
            try (L2Client next = client(harness, again))
            {
                assertBytes(name + ", after the scrub", range, readThroughClient(next, range));
                assertEquals(0, next.metrics().readFallbacks(FallbackReason.CHECKSUM), name);
                assertEquals(0, again.gets(), name + ": from the server, no fallback");
                assertTrue(harness.origin.gets() > serverGets, name + ": the server refetched the block");
            }
        }
    }

    /** What the counters, the origins and the block file say after the first read of a damaged block. */
    private void checkCounts(final ServerHarness harness, final String name, final boolean partial, final Path file,
        final int block, final long corruptBefore, final int serverGetsBefore, final L2ClientCounters client)
    {
        if (partial)
        {
            assertEquals(corruptBefore + 1, harness.store.metrics().ssdCorruptBlocks(), name + ": dropped, counted");
            assertFalse(Files.exists(file), name + ": the block file is gone");
            assertEquals(0, client.readFallbacks(FallbackReason.CHECKSUM), name + ": the server repaired it");
            assertEquals(0, clientOrigin.gets(), name + ": the client read nothing from its origin");
            final List<CountingOrigin.Get> log = harness.origin.log();
            final List<CountingOrigin.Get> refetches = log.subList(serverGetsBefore, log.size()).stream()
                .filter((get) -> get.offset() <= (long) block * BLOCK &&
                    get.offset() + get.length() >= (long) (block + 1) * BLOCK)
                .toList();
            assertEquals(1, refetches.size(), name + ": the server refetched the block once: " + log);
            assertEquals(1, harness.origin.gets() - serverGetsBefore, name + ": one server origin GET");
        }
        else
        {
            assertEquals(corruptBefore, harness.store.metrics().ssdCorruptBlocks(), name);
            assertEquals(1, client.readFallbacks(FallbackReason.CHECKSUM), name + ": the client caught it");
            assertTrue(clientOrigin.gets() >= 1, name + ": and read it from its origin");
            assertEquals(serverGetsBefore, harness.origin.gets(), name + ": the server read nothing");
        }
    }

    private void assertBytes(final String name, final long[] range, final byte[] got)
    {
        final byte[] want = new byte[(int) range[1]];
        System.arraycopy(object, (int) range[0], want, 0, want.length);
        int wrong = 0;
        for (int i = 0; i < want.length; i++)
        {
            wrong += want[i] == got[i] ? 0 : 1;
        }
        assertEquals(0, wrong, name + ": wrong bytes");
    }

    private static byte[] readThroughClient(final L2Client client, final long[] range) throws Exception
    {
        final ByteBuffer destination = ByteBuffer.allocateDirect((int) range[1]);
        assertEquals((int) range[1], client.read(KEY, range[0], destination).get(30, TimeUnit.SECONDS));
        final byte[] got = new byte[(int) range[1]];
        destination.get(0, got);
        return got;
    }

    private static byte[] readThroughEngine(final RangeCache engine, final long[] range)
    {
        final ByteBuffer destination = ByteBuffer.allocateDirect((int) range[1]);
        engine.read(KEY, range[0], destination);
        final byte[] got = new byte[(int) range[1]];
        destination.get(0, got);
        return got;
    }

    /** {start, length} of a read of the given shape over the damaged byte of {@code block}. */
    private static long[] range(final Shape shape, final Where where, final int block)
    {
        final long blockStart = (long) block * BLOCK;
        final long damaged = blockStart + where.offset;
        return switch (shape)
        {
            case WHOLE -> new long[] {blockStart, BLOCK};
            // from the block before into this one, or from this one into the next, over the damaged byte
            case CROSSING -> where.offset < BLOCK / 2
                ? new long[] {blockStart - 4096, damaged + 4096 - (blockStart - 4096)}
                : new long[] {damaged - 4096, blockStart + BLOCK + 4096 - (damaged - 4096)};
            case INSIDE -> new long[] {blockStart + Math.min(Math.max(0, where.offset - 100), BLOCK - 200), 200};
        };
    }

    /** The block file of {@code block}, found by its header. */
    private Path fileOf(final int block) throws Exception
    {
        final List<Path> files;
        try (var walk = Files.walk(tmp.resolve("ssd").resolve("blocks")))
        {
            files = walk.filter((p) -> p.toString().endsWith(".blk")).toList();
        }
        for (final Path file : files)
        {
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ))
            {
                final ByteBuffer header =
                    ByteBuffer.allocate(BlockFileFormat.HEADER_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
                channel.read(header, 0);
                header.flip();
                final BlockFileFormat.Header decoded = BlockFileFormat.decode(header, channel.size());
                if (decoded.blockIndex() == block)
                {
                    assertEquals(4, decoded.chunkCrcs().length, "a 256 KiB block has four chunk CRCs");
                    return file;
                }
            }
        }
        throw new AssertionError("no block file for block " + block);
    }

    private static void flipByte(final Path file, final long position) throws Exception
    {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE))
        {
            final ByteBuffer one = ByteBuffer.allocate(1);
            channel.read(one, position);
            one.put(0, (byte) (one.get(0) ^ 0x5A)).rewind();
            channel.write(one, position);
        }
    }

    private L2Client client(final ServerHarness harness, final CountingOrigin origin)
    {
        assertNotNull(origin);
        return new L2Client(new L2ClientContext()
            .serverUri(URI.create(harness.base()))
            .apiKey(ServerHarness.KEY)
            .origin(origin)
            .abandonTimeout(Duration.ofSeconds(2)));
    }
}
