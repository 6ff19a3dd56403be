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
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.offcache.range.l2.FallbackReason;
import dev.offcache.range.l2.L2ClientCounters;
import dev.offcache.range.l2.L2Client;
import dev.offcache.range.l2.L2ClientContext;
import dev.offcache.range.origin.FileSystemOrigin;
import dev.offcache.range.store.FetchClass;
import dev.offcache.server.tier.BlockFileFormat;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * End-to-end integrity between the L2 server and its client, through a real server on 127.0.0.1: SSD block files
 * damaged on disk after their last check are sent from their files as they are, and the L2 client catches the damage
 * by the CRC32C recorded with each block (sent after the block's bytes) and reads the rest from the origin, so the
 * caller gets the origin's bytes, for a ranged GET and for a vectored read ({@code POST /ranges}, where only the
 * damaged chunks go to the origin). A client that does not ask for checksums gets plain HTTP and plain frames.
 */
class EndToEndIntegrityTest
{
    private static final int BLOCK = ServerHarness.BLOCK;
    private static final int BLOCKS = 8;

    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @TempDir
    Path tmp;

    @Test
    void aBlockDamagedOnDiskSinceItsLastCheckNeverReachesTheCaller() throws Exception
    {
        final byte[] object = L2HttpServerTest.random(BLOCKS * BLOCK, 77);
        try (ServerHarness harness = verifiedOnSsd("lake.bin", object))
        {
            assertEquals(BLOCKS, damageBlocks(Set.of(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L)));
            final long zeroCopyBefore = harness.store.metrics().ssdZeroCopyReads();

            try (L2Client client = client(harness))
            {
                final ByteBuffer destination = ByteBuffer.allocateDirect(object.length);
                assertEquals(object.length, client.read("lake.bin", 0, destination).get(30, TimeUnit.SECONDS));
                final byte[] got = new byte[object.length];
                destination.get(got);
                assertArrayEquals(object, got, "the caller gets the origin's bytes");
                assertTrue(harness.store.metrics().ssdZeroCopyReads() > zeroCopyBefore,
                    "damaged blocks were sent from their files");
                final L2ClientCounters metrics = client.metrics();
                assertEquals(1, metrics.readFallbacks(FallbackReason.CHECKSUM), "the damage was caught");
                assertEquals(object.length, metrics.get(L2ClientCounters.Counter.L2_BYTES) +
                    metrics.get(L2ClientCounters.Counter.ORIGIN_BYTES));
            }

            // a client that does not ask gets plain HTTP: the damaged bytes, as any plain file server would send them
            final HttpResponse<byte[]> damaged = HTTP.send(plainGet(harness, "lake.bin"),
                HttpResponse.BodyHandlers.ofByteArray());
            assertEquals(object.length, damaged.body().length);
            assertFalse(damaged.headers().firstValue("Offcache-Checksum").isPresent());
        }
    }

    @Test
    void aVectoredReadGetsTheOriginsBytesForExactlyTheDamagedBlocks() throws Exception
    {
        final byte[] object = L2HttpServerTest.random(BLOCKS * BLOCK, 78);
        try (ServerHarness harness = verifiedOnSsd("vectored.bin", object))
        {
            // blocks 1, 4 and 5 damaged on disk after their check; the others stay as written
            assertEquals(3, damageBlocks(Set.of(1L, 4L, 5L)));
            final long zeroCopyBefore = harness.store.metrics().ssdZeroCopyReads();

            // whole blocks 0-1, a part of block 2, whole blocks 3-5, whole block 7
            final long[] offsets = {0, 2L * BLOCK + 1000, 3L * BLOCK, 7L * BLOCK};
            final int[] lengths = {2 * BLOCK, 4000, 3 * BLOCK, BLOCK};
            try (L2Client client = client(harness))
            {
                final ByteBuffer[] destinations = new ByteBuffer[offsets.length];
                for (int i = 0; i < offsets.length; i++)
                {
                    destinations[i] = ByteBuffer.allocateDirect(lengths[i]);
                }
                final int[] counts = client.readVectored("vectored.bin", offsets, destinations, FetchClass.DEMAND,
                    null).get(30, TimeUnit.SECONDS);
                for (int i = 0; i < offsets.length; i++)
                {
                    assertEquals(lengths[i], counts[i], "range " + i);
                    final byte[] got = new byte[lengths[i]];
                    destinations[i].get(got);
                    final byte[] want = new byte[lengths[i]];
                    System.arraycopy(object, (int) offsets[i], want, 0, lengths[i]);
                    assertArrayEquals(want, got, "range " + i + " has the origin's bytes");
                }
                assertEquals(1, harness.server.metrics().requests("ranges", 200), "one POST /ranges");
                assertTrue(harness.store.metrics().ssdZeroCopyReads() > zeroCopyBefore,
                    "damaged blocks were sent from their files");
                final L2ClientCounters metrics = client.metrics();
                assertEquals(1, metrics.readFallbacks(FallbackReason.CHECKSUM), "the damage was caught");
                assertEquals(3L * BLOCK, metrics.get(L2ClientCounters.Counter.ORIGIN_BYTES),
                    "the origin read exactly the three damaged blocks");
                assertEquals(6L * BLOCK + 4000, metrics.get(L2ClientCounters.Counter.L2_BYTES) +
                    metrics.get(L2ClientCounters.Counter.ORIGIN_BYTES));
            }
        }
    }

    @Test
    void rangesAreFramedAsBeforeWithoutTheHeaderAndChecksummedPerChunkWithIt() throws Exception
    {
        final byte[] object = L2HttpServerTest.random(BLOCKS * BLOCK - 123, 79);
        // verified SSD blocks: whole blocks go out from their files with their recorded CRC, parts read from them
        try (ServerHarness harness = verifiedOnSsd("frames.bin", object))
        {
            // across a block edge, one whole block, empty, inside one block, an end clamped to the object
            final long[][] ranges = {{BLOCK - 10, BLOCK + 20}, {2L * BLOCK, 3L * BLOCK}, {5, 5},
                {4L * BLOCK + 7, 4L * BLOCK + 99}, {object.length - 50, object.length + 1000}};
            final String json = "{\"ranges\":[[" + pairs(ranges) + "]]}";
            final HttpRequest.Builder post = HttpRequest.newBuilder(URI.create(harness.base() + "/ranges/frames.bin"))
                .header("Authorization", "Bearer " + ServerHarness.KEY)
                .POST(HttpRequest.BodyPublishers.ofString(json));

            final HttpResponse<byte[]> unchecked = HTTP.send(post.build(), HttpResponse.BodyHandlers.ofByteArray());
            assertEquals(200, unchecked.statusCode());
            assertFalse(unchecked.headers().firstValue("Offcache-Checksum").isPresent());
            assertFalse(unchecked.headers().firstValue("Offcache-Block-Size").isPresent());
            assertArrayEquals(frames(object, ranges, false), unchecked.body(), "plain frames, byte for byte");

            final HttpResponse<byte[]> checked = HTTP.send(post.header("Offcache-Checksum", "crc32c").build(),
                HttpResponse.BodyHandlers.ofByteArray());
            assertEquals(200, checked.statusCode());
            assertEquals("crc32c", checked.headers().firstValue("Offcache-Checksum").orElse(null));
            assertEquals(String.valueOf(BLOCK), checked.headers().firstValue("Offcache-Block-Size").orElse(null));
            assertEquals(String.valueOf(object.length), checked.headers().firstValue("Offcache-Object-Size")
                .orElse(null));
            assertArrayEquals(frames(object, ranges, true), checked.body(), "a CRC32C after each chunk");
        }
    }

    /**
     * A server over an origin holding {@code object}, its blocks prefetched to SSD and verified by a whole read: from
     * then on they go out from their files unchecked.
     */
    private ServerHarness verifiedOnSsd(final String key, final byte[] object) throws Exception
    {
        final Path originDir = tmp.resolve("origin");
        Files.createDirectories(originDir);
        Files.write(originDir.resolve(key), object);
        final ServerHarness harness = new ServerHarness(originDir, tmp.resolve("ssd"), 4, (long) BLOCKS * BLOCK,
            TransportKind.AUTO);
        try
        {
            harness.prefetchToSsd(key, object.length, BLOCKS);
            assertArrayEquals(object, HTTP.send(plainGet(harness, key), HttpResponse.BodyHandlers.ofByteArray())
                .body());
            return harness;
        }
        catch (final Exception | AssertionError ex)
        {
            harness.close();
            throw ex;
        }
    }

    private static HttpRequest plainGet(final ServerHarness harness, final String key)
    {
        return HttpRequest.newBuilder(URI.create(harness.base() + "/obj/" + key))
            .header("Authorization", "Bearer " + ServerHarness.KEY).build();
    }

    /** An L2 client of the harness whose own origin is the same directory. */
    private L2Client client(final ServerHarness harness)
    {
        return new L2Client(new L2ClientContext()
            .serverUri(URI.create(harness.base()))
            .apiKey(ServerHarness.KEY)
            .origin(new FileSystemOrigin(tmp.resolve("origin"), 2))
            .abandonTimeout(Duration.ofSeconds(2)));
    }

    private static String pairs(final long[][] ranges)
    {
        final StringBuilder pairs = new StringBuilder();
        for (final long[] range : ranges)
        {
            pairs.append(pairs.length() == 0 ? "" : "],[").append(range[0]).append(',').append(range[1]);
        }
        return pairs.toString();
    }

    /** The expected /ranges body: per range its clamped length (8 bytes LE), then its bytes, chunk by chunk. */
    private static byte[] frames(final byte[] object, final long[][] ranges, final boolean checksummed)
    {
        final ByteBuffer out = ByteBuffer.allocate(object.length * 2 + 1024);
        final CRC32C crc = new CRC32C();
        for (final long[] range : ranges)
        {
            final int start = (int) range[0];
            final int end = (int) Math.min(range[1], object.length);
            out.order(ByteOrder.LITTLE_ENDIAN).putLong(end - start).order(ByteOrder.BIG_ENDIAN);
            int at = start;
            while (at < end)
            {
                final int chunkEnd = checksummed ? Math.min(end, (at / BLOCK + 1) * BLOCK) : end;
                out.put(object, at, chunkEnd - at);
                if (checksummed)
                {
                    crc.reset();
                    crc.update(object, at, chunkEnd - at);
                    out.putInt((int) crc.getValue());
                }
                at = chunkEnd;
            }
        }
        final byte[] body = new byte[out.position()];
        out.flip().get(body);
        return body;
    }

    /** Writes three bytes into the data of each SSD block file whose block index is in {@code blocks}. */
    private int damageBlocks(final Set<Long> blocks) throws Exception
    {
        final List<Path> files;
        try (var walk = Files.walk(tmp.resolve("ssd").resolve("blocks")))
        {
            files = walk.filter((p) -> p.toString().endsWith(".blk")).toList();
        }
        int damaged = 0;
        for (final Path file : files)
        {
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE))
            {
                final ByteBuffer header =
                    ByteBuffer.allocate(BlockFileFormat.HEADER_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
                channel.read(header, 0);
                header.flip();
                if (blocks.contains(BlockFileFormat.decode(header, channel.size()).blockIndex()))
                {
                    channel.write(ByteBuffer.wrap(new byte[] {42, 42, 42}), BlockFileFormat.HEADER_LENGTH + 100);
                    damaged++;
                }
            }
        }
        return damaged;
    }
}
