package dev.offcache.hadoop.fs;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.hadoop.fs.Path;

/**
 * The real local file system (the raw one: the checksummed one asks for statuses inside its own reads), counting
 * the calls the adapter makes on it: status calls outside an open (what a HEAD is on an object store) and opens (one
 * per origin read). Counts are static because Hadoop makes the instance by reflection.
 */
public class CountingLocalFileSystem extends RawLocalFileSystem
{
    static final AtomicInteger STATUS_CALLS = new AtomicInteger();
    static final AtomicInteger OPENS = new AtomicInteger();
    static volatile boolean failOpens;
    private static final ThreadLocal<Boolean> IN_OPEN = ThreadLocal.withInitial(() -> false);

    static void reset()
    {
        STATUS_CALLS.set(0);
        OPENS.set(0);
        failOpens = false;
    }

    @Override
    public FileStatus getFileStatus(final Path f) throws IOException
    {
        // The checksummed file system's own open looks up statuses (the .crc file's); only the adapter's count.
        if (!IN_OPEN.get())
        {
            STATUS_CALLS.incrementAndGet();
        }
        return super.getFileStatus(f);
    }

    @Override
    public FSDataInputStream open(final Path f, final int bufferSize) throws IOException
    {
        OPENS.incrementAndGet();
        if (failOpens)
        {
            throw new IOException("injected: the origin is down");
        }
        IN_OPEN.set(true);
        try
        {
            return super.open(f, bufferSize);
        }
        finally
        {
            IN_OPEN.set(false);
        }
    }
}
