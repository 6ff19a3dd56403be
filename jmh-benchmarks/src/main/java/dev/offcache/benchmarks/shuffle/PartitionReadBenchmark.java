package dev.offcache.benchmarks.shuffle;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.TimeUnit;

import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
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

import dev.offcache.benchmarks.BenchmarkFiles;
import dev.offcache.benchmarks.ShortRun;
import dev.offcache.core.shuffle.MappedPartition;
import dev.offcache.core.shuffle.PartitionId;
import dev.offcache.core.shuffle.PartitionWriter;
import dev.offcache.core.shuffle.PinSet;
import dev.offcache.core.shuffle.ShufflePartitionStore;

/**
 * Reading a whole committed shuffle partition and summing its longs (the file is in the page cache for all of
 * them):
 * <ul>
 *   <li>{@code oursOpenSumClose}: ours per read: {@link ShufflePartitionStore#openPartition} (map read-only,
 *       footer check), sum through a zero-copy view, close (unmap).</li>
 *   <li>{@code baselineFileChannelOpenSumClose}: the baseline per read: open a {@link FileChannel}, read the data
 *       into a reused direct buffer, sum, close.</li>
 *   <li>{@code oursSum}: ours with the partition kept mapped (a reader serving it repeatedly).</li>
 *   <li>{@code baselineFileChannelSum}: the baseline with the channel kept open (positional read + sum).</li>
 * </ul>
 * Neither side verifies the CRC (that is a separate, optional pass over the bytes for both).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class PartitionReadBenchmark extends ShortRun
{
    /**
     * Partition data size in bytes (a multiple of 8).
     */
    @Param({"65536", "16777216"})
    public int size;

    private Path workDir;
    private ShufflePartitionStore store;
    private PartitionId id;
    private Path path;
    private MappedPartition openPartition;
    private FileChannel openChannel;
    private ByteBuffer readBuffer;
    private UnsafeBuffer readView;
    private final UnsafeBuffer mappedView = new UnsafeBuffer(0, 0);

    /**
     * Writes one partition of {@code size} bytes of longs and opens the kept-open variants.
     *
     * @throws IOException if the temp directory cannot be made.
     */
    @Setup(Level.Trial)
    public void setUp() throws IOException
    {
        workDir = Files.createTempDirectory("offcache-partition-read");
        store = new ShufflePartitionStore(workDir, PinSet.NONE);
        id = new PartitionId("bench", 0, 0);
        final UnsafeBuffer chunk = new UnsafeBuffer(ByteBuffer.allocateDirect(64 * 1024));
        try (PartitionWriter writer = store.openWriter(id))
        {
            long value = 0;
            for (int written = 0; written < size; written += chunk.capacity())
            {
                final int length = Math.min(chunk.capacity(), size - written);
                for (int i = 0; i < length; i += 8)
                {
                    chunk.putLong(i, value++, ByteOrder.LITTLE_ENDIAN);
                }
                writer.write(chunk, 0, length);
            }
            path = writer.commit().path();
        }
        BufferUtil.free(chunk.byteBuffer());
        openPartition = store.openPartition(id);
        openPartition.wrap(mappedView, 0, size);
        openChannel = FileChannel.open(path, StandardOpenOption.READ);
        readBuffer = ByteBuffer.allocateDirect(size);
        readView = new UnsafeBuffer(readBuffer);
    }

    /**
     * Unmaps, closes and deletes everything.
     *
     * @throws IOException if the files cannot be deleted.
     */
    @TearDown(Level.Trial)
    public void tearDown() throws IOException
    {
        openPartition.close();
        openChannel.close();
        BufferUtil.free(readBuffer);
        BenchmarkFiles.deleteTree(workDir);
    }

    /**
     * Ours, per read: map, sum, unmap.
     *
     * @return the sum.
     */
    @Benchmark
    public long oursOpenSumClose()
    {
        try (MappedPartition partition = store.openPartition(id))
        {
            final UnsafeBuffer view = mappedView;
            partition.wrap(view, 0, (int) partition.length());
            return sum(view, (int) partition.length());
        }
    }

    /**
     * Baseline, per read: open a channel, read into a direct buffer, sum, close.
     *
     * @return the sum.
     * @throws IOException if the read fails.
     */
    @Benchmark
    public long baselineFileChannelOpenSumClose() throws IOException
    {
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ))
        {
            return readAndSum(channel);
        }
    }

    /**
     * Ours, partition kept mapped: sum through the view.
     *
     * @return the sum.
     */
    @Benchmark
    public long oursSum()
    {
        openPartition.wrap(mappedView, 0, size);
        return sum(mappedView, size);
    }

    /**
     * Baseline, channel kept open: positional read into a direct buffer, sum.
     *
     * @return the sum.
     * @throws IOException if the read fails.
     */
    @Benchmark
    public long baselineFileChannelSum() throws IOException
    {
        return readAndSum(openChannel);
    }

    private long readAndSum(final FileChannel channel) throws IOException
    {
        final ByteBuffer buffer = readBuffer;
        buffer.clear();
        long position = 0;
        while (buffer.hasRemaining())
        {
            final int read = channel.read(buffer, position);
            if (read < 0)
            {
                throw new IOException("unexpected end of " + path + " at " + position);
            }
            position += read;
        }
        return sum(readView, size);
    }

    private static long sum(final UnsafeBuffer buffer, final int length)
    {
        long sum = 0;
        for (int i = 0; i < length; i += 8)
        {
            sum += buffer.getLong(i, ByteOrder.LITTLE_ENDIAN);
        }
        return sum;
    }
}
