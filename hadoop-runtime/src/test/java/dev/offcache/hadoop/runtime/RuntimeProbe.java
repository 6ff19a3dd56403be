package dev.offcache.hadoop.runtime;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;

/**
 * What an engine does with the runtime jar, run in a child JVM whose class path is only the shaded jar and Hadoop's
 * shaded client: register offcache for {@code file}, read a file twice, print what the stream's statistics say.
 * Given an L2 server (one in front of the same directory), the cache reads its misses through it.
 */
public final class RuntimeProbe
{
    private RuntimeProbe()
    {
    }

    /**
     * Runs the probe.
     *
     * @param args the directory to write the file in; optionally an L2 server's URL and API key.
     * @throws Exception on any failure (the parent test reads the exit code and output).
     */
    public static void main(final String[] args) throws Exception
    {
        final Path file = Path.of(args[0], "probe.bin");
        final byte[] data = new byte[3 << 20];
        for (int i = 0; i < data.length; i++)
        {
            data[i] = (byte) (i * 7 + (i >>> 11));
        }
        Files.write(file, data);
        final Configuration conf = new Configuration();
        conf.set("fs.file.impl", "dev.offcache.hadoop.fs.OffcacheFileSystem");
        conf.setBoolean("fs.file.impl.disable.cache", true);
        conf.set("offcache.l1.mb", "8");
        if (args.length == 3)
        {
            conf.set("offcache.l2.servers", args[1]);
            conf.set("offcache.l2.api.key", args[2]);
            conf.set("offcache.l2.locations", Path.of(args[0]).toUri().toString());
            conf.set("offcache.l2.abandon.timeout.ms", "30000");
        }
        try
        {
            final FileSystem fs = FileSystem.get(URI.create("file:///"), conf);
            long hits = 0;
            long l2Bytes = -1;
            String counters = "";
            for (int round = 0; round < 2; round++)
            {
                try (FSDataInputStream in = fs.open(new org.apache.hadoop.fs.Path(file.toUri())))
                {
                    final byte[] got = new byte[data.length];
                    in.readFully(0, got);
                    if (!Arrays.equals(data, got))
                    {
                        throw new AssertionError("bytes differ in round " + round);
                    }
                    // each stream counts its own reads: the warm round's hits, the cold round's L2 bytes
                    hits = in.getIOStatistics().counters().get("offcache_l1_block_hits");
                    if (round == 0)
                    {
                        l2Bytes = in.getIOStatistics().counters().getOrDefault("offcache_l2_bytes", -1L);
                    }
                    counters = in.getIOStatistics().counters().toString();
                }
            }
            System.out.println("OK fs=" + fs.getClass().getName() + " hits=" + hits + " l2bytes=" + l2Bytes + " " +
                counters);
            fs.close();
        }
        catch (final Exception ex)
        {
            System.err.println("FAILED: " + ex);
            System.exit(2);
        }
    }
}
