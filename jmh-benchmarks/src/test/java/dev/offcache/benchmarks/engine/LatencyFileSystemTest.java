package dev.offcache.benchmarks.engine;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.Arrays;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@link LatencyFileSystem} counts what an object store would charge for, whichever way a file is opened: a
 * positional read through {@code open} and one through the {@code openFile} builder (what Parquet and Spark use) are
 * each one GET of the bytes read, opening is free, and a status call is one metadata call. Latency 0, so nothing
 * waits; the counters are JVM-wide, so the test compares their moves.
 */
class LatencyFileSystemTest
{
    @TempDir
    java.nio.file.Path dir;

    @Test
    void openAndTheOpenFileBuilderBothCountOneGetPerReadAndNoMetadata() throws Exception
    {
        final byte[] content = "0123456789abcdef".repeat(64).getBytes(StandardCharsets.US_ASCII);
        final java.nio.file.Path local = Files.write(dir.resolve("object.bin"), content);
        final Configuration conf = new Configuration();
        conf.setLong(LatencyFileSystem.LATENCY_MS, 0);
        try (LatencyFileSystem fs = new LatencyFileSystem())
        {
            fs.initialize(URI.create("file:///"), conf);
            final Path path = new Path(local.toUri());

            final long gets = LatencyFileSystem.GETS.get();
            final long bytes = LatencyFileSystem.BYTES.get();
            final long metadata = LatencyFileSystem.METADATA.get();
            try (FSDataInputStream in = fs.open(path))
            {
                assertArrayEquals(Arrays.copyOfRange(content, 100, 300), readAt(in, 100, 200));
            }
            assertEquals(gets + 1, LatencyFileSystem.GETS.get(), "GETs after open and one positional read");
            assertEquals(bytes + 200, LatencyFileSystem.BYTES.get(), "bytes after open and one positional read");
            assertEquals(metadata, LatencyFileSystem.METADATA.get(), "metadata calls after open");

            try (FSDataInputStream in = fs.openFile(path).build().get())
            {
                assertArrayEquals(Arrays.copyOfRange(content, 512, 1024), readAt(in, 512, 512));
            }
            assertEquals(gets + 2, LatencyFileSystem.GETS.get(), "GETs after openFile and one positional read");
            assertEquals(bytes + 712, LatencyFileSystem.BYTES.get(), "bytes after openFile and one positional read");
            assertEquals(metadata, LatencyFileSystem.METADATA.get(), "metadata calls after openFile");

            assertEquals(content.length, fs.getFileStatus(path).getLen());
            assertEquals(metadata + 1, LatencyFileSystem.METADATA.get(), "metadata calls after one status call");
            assertEquals(gets + 2, LatencyFileSystem.GETS.get(), "GETs after a status call");
        }
    }

    private static byte[] readAt(final FSDataInputStream in, final long position, final int length) throws Exception
    {
        final byte[] read = new byte[length];
        in.readFully(position, read);
        return read;
    }
}
