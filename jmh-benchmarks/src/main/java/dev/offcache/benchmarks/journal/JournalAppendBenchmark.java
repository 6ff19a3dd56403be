package dev.offcache.benchmarks.journal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.ThreadLocalRandom;
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
import dev.offcache.core.journal.Journal;

/**
 * Durable appends: {@code recordsPerForce} records, then a force, per invocation (so with the default of 1 every
 * record is on the device before the next one starts).
 * <ul>
 *   <li>{@code oursAppendForce}: ours, {@link Journal#append} (frame and CRC32C built in a direct staging buffer,
 *       one {@code pwrite} into the preallocated segment) and {@link Journal#force()} ({@code fdatasync}, then the
 *       segment's checkpoint written). Segments of {@value #SEGMENT_BYTES} bytes; full ones are deleted as the run
 *       goes, so the disk use stays bounded.</li>
 *   <li>{@code baselineFileChannelAppendForce}: the baseline, the same payload bytes written by
 *       {@link FileChannel#write} from a direct buffer, then {@link FileChannel#force(boolean) force(false)}
 *       (fdatasync); no framing or checksum. The file is replaced every {@value #SEGMENT_BYTES} bytes, like a
 *       segment.</li>
 * </ul>
 * Scores are invocations per second; multiply by {@code recordsPerForce} for records per second. With
 * {@code -p recordsPerForce=0} nothing is forced: that measures the append path alone (frame + CRC32C + {@code pwrite}
 * against a {@code write} system call).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class JournalAppendBenchmark extends ShortRun
{
    static final int SEGMENT_BYTES = 64 * 1024 * 1024;

    /**
     * Payload bytes per record.
     */
    @Param({"64", "4096"})
    public int recordSize;

    /**
     * Records appended per force; 0 appends one record and never forces (the cost of the append path alone).
     */
    @Param({"1"})
    public int recordsPerForce;

    private Path dir;
    private Journal journal;
    private ByteBuffer payload;
    private UnsafeBuffer payloadBuffer;
    private FileChannel channel;
    private long channelPosition;
    private int baselineFile;

    /**
     * Opens a fresh journal and baseline file under the temp directory.
     *
     * @throws IOException if the temp directory cannot be made.
     */
    @Setup(Level.Trial)
    public void setUp() throws IOException
    {
        dir = Files.createTempDirectory("offcache-journal-append");
        journal = Journal.open(new Journal.Context().directory(dir.resolve("journal")).segmentSize(SEGMENT_BYTES));
        payload = ByteBuffer.allocateDirect(recordSize);
        payloadBuffer = new UnsafeBuffer(payload);
        final byte[] bytes = new byte[recordSize];
        ThreadLocalRandom.current().nextBytes(bytes);
        payloadBuffer.putBytes(0, bytes);
        openBaselineFile();
    }

    /**
     * Closes and deletes everything.
     *
     * @throws IOException if the files cannot be deleted.
     */
    @TearDown(Level.Trial)
    public void tearDown() throws IOException
    {
        journal.close();
        channel.close();
        BufferUtil.free(payload);
        BenchmarkFiles.deleteTree(dir);
    }

    /**
     * Ours: append {@code recordsPerForce} records to the mapped journal, then force.
     *
     * @return the last record's position.
     */
    @Benchmark
    public long oursAppendForce()
    {
        long position = 0;
        for (int i = 0, n = Math.max(1, recordsPerForce); i < n; i++)
        {
            position = journal.append(payloadBuffer, 0, recordSize);
        }
        if (recordsPerForce > 0)
        {
            journal.force();
        }
        if (journal.segmentCount() > 2)
        {
            journal.deleteSegmentsBefore(position);
        }
        return position;
    }

    /**
     * Baseline: write the same bytes with a FileChannel, then fdatasync.
     *
     * @return the file position after the writes.
     * @throws IOException if a write fails.
     */
    @Benchmark
    public long baselineFileChannelAppendForce() throws IOException
    {
        for (int i = 0, n = Math.max(1, recordsPerForce); i < n; i++)
        {
            payload.clear();
            while (payload.hasRemaining())
            {
                channelPosition += channel.write(payload);
            }
        }
        if (recordsPerForce > 0)
        {
            channel.force(false);
        }
        if (channelPosition >= SEGMENT_BYTES)
        {
            channel.close();
            Files.delete(baselinePath());
            baselineFile++;
            openBaselineFile();
        }
        return channelPosition;
    }

    private void openBaselineFile() throws IOException
    {
        channel = FileChannel.open(baselinePath(), StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        channelPosition = 0;
    }

    private Path baselinePath()
    {
        return dir.resolve("baseline-" + baselineFile + ".log");
    }
}
