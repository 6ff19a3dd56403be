package dev.offcache.benchmarks.tier;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import dev.offcache.core.checksum.Crc32c;
import dev.offcache.server.tier.ObjectName;
import dev.offcache.server.tier.SsdFile;
import dev.offcache.server.tier.SsdTier;
import dev.offcache.server.tier.TierCounters;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * A read of a part of an SSD block file as the L2 server serves it to a client that wants the bytes in memory with
 * their CRC32C (the L2 client's checksummed GET): the part's bytes into a direct buffer, plus the CRC32C sent after
 * them, on one thread, the files in the page cache (so the figure is the CPU a request costs, not the disk). Three
 * ways, side by side in the same run ({@code mode}):
 * <ul>
 *   <li>{@code UNCHECKED}: what the server did before (the baseline): a positional read of the part and the CRC of
 *       what was read, no check against what was stored;</li>
 *   <li>{@code WHOLE_BLOCK}: the whole block read into a scratch buffer and checked against its recorded CRC, the part
 *       copied out, its CRC computed (verifying by reading the whole block);</li>
 *   <li>{@code CHUNKS}: what the server does now, {@link SsdFile#readAsync} (run on the calling thread here): the part
 *       read straight into the destination, each 64 KiB chunk it touches checked against the CRC recorded for it
 *       (the chunk's bytes around the part read as well), then the part's CRC.</li>
 * </ul>
 * {@code shape} is {@code blockBytes:readBytes:aligned}: parts of 64 KiB and 1 MiB, inside 1 MiB and 4 MiB blocks,
 * at offsets that are multiples of the read's length ({@code true}, as the benchmarks' block-aligned ranges and the
 * adapters' blocks are) or shifted by 1000 bytes ({@code false}: both edge chunks are read twice over).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Thread)
public class SsdPartialReadBenchmark
{
    private static final int BLOCKS = 16;
    private static final int SEQUENCE = 1 << 10;
    private static final ObjectName NAME = new ObjectName("bench", "blocks.bin");

    /** How the part is read and checked. */
    public enum Verification
    {
        /** Read the part, CRC what was read (the server before chunk CRCs). */
        UNCHECKED,
        /** Read the whole block and check its recorded CRC, copy the part out, CRC it. */
        WHOLE_BLOCK,
        /** Read the part and check the chunks it touches ({@link SsdFile#readAsync}), CRC it. */
        CHUNKS
    }

    @Param({"UNCHECKED", "WHOLE_BLOCK", "CHUNKS"})
    Verification mode;

    @Param({"1048576:65536:true", "1048576:65536:false", "4194304:1048576:true", "4194304:1048576:false"})
    String shape;

    private Path dir;
    private TierCounters metrics;
    private SsdTier tier;
    private SsdFile[] files;
    private int blockBytes;
    private int readBytes;
    private int[] blocks;
    private int[] offsets;
    private int next;
    private ByteBuffer destination;
    private ByteBuffer scratch;

    /**
     * Writes the block files, checks each once (so they are verified and open), and draws the read sequence.
     *
     * @throws IOException if the directory cannot be made.
     */
    @Setup(Level.Trial)
    public void setUp() throws IOException
    {
        final String[] parts = shape.split(":");
        blockBytes = Integer.parseInt(parts[0]);
        readBytes = Integer.parseInt(parts[1]);
        final boolean aligned = Boolean.parseBoolean(parts[2]);
        dir = Files.createTempDirectory("offcache-ssd-part");
        metrics = new TierCounters();
        tier = SsdTier.open(dir, (long) (BLOCKS + 1) * (blockBytes + 4096), metrics);
        final Random random = new Random(31);
        final byte[] content = new byte[blockBytes];
        final ByteBuffer check = ByteBuffer.allocateDirect(blockBytes);
        files = new SsdFile[BLOCKS];
        for (int b = 0; b < BLOCKS; b++)
        {
            random.nextBytes(content);
            if (!tier.write(NAME, b, new UnsafeBuffer(content), 0, blockBytes) ||
                tier.read(NAME, b, new UnsafeBuffer(check)) != blockBytes)
            {
                throw new IllegalStateException("block " + b + " not written and verified");
            }
            files[b] = tier.openVerified(NAME, b, blockBytes);
        }
        BufferUtil.free(check);
        blocks = new int[SEQUENCE];
        offsets = new int[SEQUENCE];
        final int slots = blockBytes / readBytes - (aligned ? 0 : 1);
        for (int i = 0; i < SEQUENCE; i++)
        {
            blocks[i] = random.nextInt(BLOCKS);
            offsets[i] = random.nextInt(slots) * readBytes + (aligned ? 0 : 1000);
        }
        destination = ByteBuffer.allocateDirect(readBytes);
        scratch = ByteBuffer.allocateDirect(blockBytes);
    }

    /**
     * Releases the files, closes the tier and deletes its directory; no block may have failed its check.
     *
     * @throws IOException if the directory cannot be deleted.
     */
    @TearDown(Level.Trial)
    public void tearDown() throws IOException
    {
        for (final SsdFile file : files)
        {
            file.release();
        }
        tier.close();
        final long corrupt = metrics.ssdCorruptBlocks();
        metrics.close();
        BufferUtil.free(destination);
        BufferUtil.free(scratch);
        try (Stream<Path> walk = Files.walk(dir))
        {
            for (final Path file : walk.sorted(Comparator.reverseOrder()).toList())
            {
                Files.delete(file);
            }
        }
        if (corrupt != 0)
        {
            throw new IllegalStateException(corrupt + " blocks failed their check");
        }
    }

    /**
     * One part read, as {@code mode} says, and the CRC32C that goes after it.
     *
     * @return the part's CRC32C.
     * @throws Exception if the read fails.
     */
    @Benchmark
    public int readPart() throws Exception
    {
        final int i = next;
        next = (i + 1) & (SEQUENCE - 1);
        final SsdFile file = files[blocks[i]];
        final int offset = offsets[i];
        destination.clear();
        switch (mode)
        {
            case UNCHECKED ->
                readFully(file.channel(), file.dataPosition() + offset, destination);
            case WHOLE_BLOCK ->
            {
                scratch.clear();
                readFully(file.channel(), file.dataPosition(), scratch);
                if ((Crc32c.compute(scratch, 0, blockBytes) & 0xFFFF_FFFFL) != file.crc32c())
                {
                    throw new IllegalStateException("block failed its check");
                }
                destination.put(0, scratch, offset, readBytes);
            }
            case CHUNKS -> file.readAsync(offset, destination).join();
            default -> throw new IllegalStateException(mode.toString());
        }
        return Crc32c.compute(destination, 0, readBytes);
    }

    private static void readFully(final FileChannel channel, final long position, final ByteBuffer target)
        throws IOException
    {
        long at = position;
        while (target.hasRemaining())
        {
            final int n = channel.read(target, at);
            if (n < 0)
            {
                throw new EOFException("file ended at " + at);
            }
            at += n;
        }
    }
}
