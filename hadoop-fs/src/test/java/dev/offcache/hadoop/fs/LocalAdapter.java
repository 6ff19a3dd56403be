package dev.offcache.hadoop.fs;

import java.io.IOException;
import java.util.Random;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * The adapter's tests over the counting local file system: the configuration that serves {@code file:} through
 * offcache in front of {@link CountingLocalFileSystem} ({@link #BLOCK} blocks, 4 MiB of L1), and files of known
 * bytes.
 */
final class LocalAdapter
{
    static final int BLOCK = 16 << 10;

    private LocalAdapter()
    {
    }

    /** A fresh configuration, with the counting file system's counts reset. */
    static Configuration conf()
    {
        CountingLocalFileSystem.reset();
        final Configuration conf = new Configuration(false);
        conf.set("fs.file.impl", OffcacheFileSystem.class.getName());
        conf.setBoolean("fs.file.impl.disable.cache", true);
        conf.set("offcache.fs.file.impl", CountingLocalFileSystem.class.getName());
        conf.set("offcache.l1.mb", "4");
        conf.set("offcache.block.size", (BLOCK >> 10) + "K");
        return conf;
    }

    /** Writes {@code size} random bytes (from {@code seed}) and returns them. */
    static byte[] write(final FileSystem fs, final Path path, final int size, final long seed) throws IOException
    {
        final byte[] data = new byte[size];
        new Random(seed).nextBytes(data);
        try (FSDataOutputStream out = fs.create(path, true))
        {
            out.write(data);
        }
        return data;
    }
}
