package dev.offcache.server.tier;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import dev.offcache.core.slab.BlockRef;
import dev.offcache.testkit.jvm.ChildJvm;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A real {@code kill -9} of a process in the middle of SSD writes: after a restart, every block the index offers is
 * exactly what was written, and nothing torn is served.
 */
class KillNineRecoveryTest
{
    static final int BLOCK = 64 * 1024;

    @TempDir
    Path dir;

    static int lengthOf(final long i)
    {
        return i % 7 == 6 ? 1 + (int) (i * 7919 % BLOCK) : BLOCK;
    }

    @Test
    void killedWriterLeavesOnlyWholeVerifiedBlocks() throws Exception
    {
        final Path ssd = dir.resolve("ssd");
        for (int round = 0; round < 3; round++)
        {
            runAndKill(ssd, 150 + round * 100L);
            final TestNames names = new TestNames(500);
            try (TieredBlockStore store = TieredBlockStore.open(new TieredBlockStore.Context()
                .blockSize(BLOCK)
                .ramCapacityBytes(4L * BLOCK)
                .ssdCapacityBytes(1L << 30)
                .ssdDir(ssd)
                .names(names)))
            {
                final int blocks = store.ssd().blockCount();
                assertTrue(blocks > 20, "blocks published before the kill: " + blocks);
                int verified = 0;
                for (final Path file : blockFiles(ssd))
                {
                    final long index = indexOf(file);
                    final String key = "k" + (index % 50);
                    final BlockRef ref = store.acquire(names.blockKey(key, index));
                    assertNotNull(ref, "an indexed block is readable: " + file);
                    try
                    {
                        final byte[] bytes = new byte[ref.length()];
                        ref.buffer().getBytes(0, bytes);
                        assertArrayEquals(TieredBlockStoreTest.content(key, index, lengthOf(index)), bytes);
                        verified++;
                    }
                    finally
                    {
                        ref.release();
                    }
                }
                assertEquals(blocks, verified);
                assertEquals(0, store.metrics().ssdCorruptBlocks(), "no published block was torn");
                System.out.printf("round %d: %d blocks recovered and verified, %d torn temp files discarded%n",
                    round, verified, store.metrics().ssdTornWritesDiscarded());
            }
        }
    }

    private static void runAndKill(final Path ssd, final long runMillis) throws Exception
    {
        final Process child = ChildJvm.launch(List.of("-Xmx64m"), SsdWriterChild.class, ssd.toString());
        try
        {
            final BufferedReader out = new BufferedReader(
                new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
            String line;
            while (null != (line = out.readLine()) && !line.equals("ready"))
            {
                // skip start-up logging
            }
            assertEquals("ready", line, "the child started writing");
            Thread.sleep(runMillis);
        }
        finally
        {
            child.destroyForcibly();
            assertTrue(child.waitFor(10, TimeUnit.SECONDS));
        }
        assertEquals(137, child.exitValue(), "killed with SIGKILL");
    }

    private static List<Path> blockFiles(final Path ssd) throws Exception
    {
        try (Stream<Path> files = Files.walk(ssd.resolve("blocks")))
        {
            return files.filter((p) -> p.toString().endsWith(".blk")).toList();
        }
    }

    /** The block index from the file's header (the name is a publication sequence number, not the index). */
    private static long indexOf(final Path file) throws Exception
    {
        final ByteBuffer header = ByteBuffer.wrap(Files.readAllBytes(file), 0,
            BlockFileFormat.HEADER_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
        return BlockFileFormat.decode(header.slice().order(ByteOrder.LITTLE_ENDIAN), Files.size(file))
            .blockIndex();
    }
}
