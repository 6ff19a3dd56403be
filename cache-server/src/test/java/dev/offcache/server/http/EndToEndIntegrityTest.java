package dev.offcache.server.http;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.offcache.range.l2.FallbackReason;
import dev.offcache.range.l2.L2ClientMetrics;
import dev.offcache.range.l2.L2Origin;
import dev.offcache.range.origin.FileSystemOrigin;
import dev.offcache.server.tier.BlockFileFormat;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * End-to-end integrity between the L2 server and its client, through a real server on 127.0.0.1: SSD block files
 * damaged on disk after their last check are sent from their files as they are, and the L2 client catches the damage
 * by the CRC32C recorded with each block (sent after the block's bytes) and reads the rest from the origin, so the
 * caller gets the origin's bytes. A client that does not ask for checksums gets plain HTTP.
 */
class EndToEndIntegrityTest
{
    private static final int BLOCK = ServerHarness.BLOCK;
    private static final int BLOCKS = 8;

    @TempDir
    Path tmp;

    @Test
    void aBlockDamagedOnDiskSinceItsLastCheckNeverReachesTheCaller() throws Exception
    {
        final Path originDir = tmp.resolve("origin");
        Files.createDirectories(originDir);
        final byte[] object = L2HttpServerTest.random(BLOCKS * BLOCK, 77);
        Files.write(originDir.resolve("lake.bin"), object);
        try (ServerHarness harness = new ServerHarness(originDir, tmp.resolve("ssd"), 4, (long) BLOCKS * BLOCK,
            TransportKind.AUTO))
        {
            final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            harness.prefetchToSsd("lake.bin", object.length, BLOCKS);
            // a whole read checks every block file's CRC: from now on the blocks go out from their files unchecked
            final HttpRequest plain = HttpRequest.newBuilder(URI.create(harness.base() + "/obj/lake.bin"))
                .header("Authorization", "Bearer " + ServerHarness.KEY).build();
            assertArrayEquals(object, http.send(plain, HttpResponse.BodyHandlers.ofByteArray()).body());

            final List<Path> files;
            try (var walk = Files.walk(tmp.resolve("ssd").resolve("blocks")))
            {
                files = walk.filter((p) -> p.toString().endsWith(".blk")).toList();
            }
            assertEquals(BLOCKS, files.size());
            for (final Path file : files)
            {
                try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE))
                {
                    channel.write(ByteBuffer.wrap(new byte[] {42, 42, 42}), BlockFileFormat.HEADER_LENGTH + 100);
                }
            }
            final long zeroCopyBefore = harness.store.metrics().ssdZeroCopyReads();

            try (L2Origin client = L2Origin.newBuilder()
                .server(URI.create(harness.base()))
                .apiKey(ServerHarness.KEY)
                .origin(new FileSystemOrigin(originDir, 2))
                .abandonTimeout(Duration.ofSeconds(2))
                .build())
            {
                final ByteBuffer destination = ByteBuffer.allocateDirect(object.length);
                assertEquals(object.length, client.read("lake.bin", 0, destination).get(30, TimeUnit.SECONDS));
                final byte[] got = new byte[object.length];
                destination.get(got);
                assertArrayEquals(object, got, "the caller gets the origin's bytes");
                assertTrue(harness.store.metrics().ssdZeroCopyReads() > zeroCopyBefore,
                    "damaged blocks were sent from their files");
                final L2ClientMetrics metrics = client.metrics();
                assertEquals(1, metrics.readFallbacks(FallbackReason.CHECKSUM), "the damage was caught");
                assertEquals(object.length, metrics.get(L2ClientMetrics.Counter.L2_BYTES) +
                    metrics.get(L2ClientMetrics.Counter.ORIGIN_BYTES));
            }

            // a client that does not ask gets plain HTTP: the damaged bytes, as any plain file server would send them
            final HttpResponse<byte[]> damaged = http.send(plain, HttpResponse.BodyHandlers.ofByteArray());
            assertEquals(object.length, damaged.body().length);
            assertFalse(damaged.headers().firstValue("Offcache-Checksum").isPresent());
        }
    }
}
