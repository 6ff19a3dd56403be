package dev.offcache.benchmarks.engine;

import java.io.IOException;
import java.net.URI;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSInputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FilterFileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;

/**
 * A local file system that behaves like an object store for the scan benchmarks: every read request (a positional
 * read, or the first read after a seek) waits {@code offcache.bench.latency.ms} like a GET's first byte, every
 * status or listing call waits the same like a HEAD/LIST, and opening a file costs nothing (object-store opens are
 * lazy). Counts GETs, bytes and metadata calls JVM-wide ({@link #GETS}, {@link #BYTES}, {@link #METADATA}); one
 * benchmark trial runs per forked JVM.
 *
 * <p>The read latency is added by the local file system this one filters ({@link SlowLocalFileSystem}), not here:
 * {@code open} and the {@code openFile} builder both reach the raw file system, whose builder comes back to its own
 * {@code open}, so every way of opening pays it. The metadata latency is added here, so the raw file system's own
 * status calls (inside its {@code open}) are not counted.
 */
public class LatencyFileSystem extends FilterFileSystem
{
    /** The latency setting, milliseconds. */
    public static final String LATENCY_MS = "offcache.bench.latency.ms";
    /** Read requests sent to the local files. */
    public static final AtomicLong GETS = new AtomicLong();
    /** Bytes those requests returned. */
    public static final AtomicLong BYTES = new AtomicLong();
    /** Status and listing calls. */
    public static final AtomicLong METADATA = new AtomicLong();

    private final SlowLocalFileSystem local;

    /**
     * Made by reflection (it is the real file system offcache wraps) or directly.
     */
    public LatencyFileSystem()
    {
        this(new SlowLocalFileSystem());
    }

    private LatencyFileSystem(final SlowLocalFileSystem local)
    {
        super(local);
        this.local = local;
    }

    @Override
    public void initialize(final URI name, final Configuration conf) throws IOException
    {
        fs.initialize(name, conf);
        super.initialize(name, conf);
    }

    @Override
    public String getScheme()
    {
        return "file";
    }

    @Override
    public FileStatus getFileStatus(final Path f) throws IOException
    {
        METADATA.incrementAndGet();
        pause(local.latencyNs);
        return super.getFileStatus(f);
    }

    @Override
    public FileStatus[] listStatus(final Path f) throws IOException
    {
        METADATA.incrementAndGet();
        pause(local.latencyNs);
        return super.listStatus(f);
    }

    static void pause(final long nanos)
    {
        final long end = System.nanoTime() + nanos;
        long left = nanos;
        while (left > 0)
        {
            LockSupport.parkNanos(left);
            left = end - System.nanoTime();
        }
    }

    /**
     * The local files, each stream opened with a GET's latency on every read request. {@code RawLocalFileSystem}
     * keeps {@code FileSystem}'s own {@code openFile} builder, which opens through {@link #open(Path, int)}.
     */
    private static final class SlowLocalFileSystem extends RawLocalFileSystem
    {
        private long latencyNs;

        @Override
        public void initialize(final URI name, final Configuration conf) throws IOException
        {
            super.initialize(name, conf);
            latencyNs = TimeUnit.MILLISECONDS.toNanos(conf.getLong(LATENCY_MS, 0));
        }

        @Override
        public FSDataInputStream open(final Path f, final int bufferSize) throws IOException
        {
            return new FSDataInputStream(new SlowStream(super.open(f, bufferSize), latencyNs));
        }
    }

    /** The local stream with a GET's latency on every request. */
    private static final class SlowStream extends FSInputStream
    {
        private final FSDataInputStream in;
        private final long latencyNs;
        private boolean streaming;

        SlowStream(final FSDataInputStream in, final long latencyNs)
        {
            this.in = in;
            this.latencyNs = latencyNs;
        }

        private void request(final int bytes)
        {
            GETS.incrementAndGet();
            if (bytes > 0)
            {
                BYTES.addAndGet(bytes);
            }
            pause(latencyNs);
        }

        @Override
        public void seek(final long pos) throws IOException
        {
            if (pos != in.getPos())
            {
                streaming = false;
            }
            in.seek(pos);
        }

        @Override
        public long getPos() throws IOException
        {
            return in.getPos();
        }

        @Override
        public boolean seekToNewSource(final long targetPos)
        {
            return false;
        }

        @Override
        public int read() throws IOException
        {
            if (!streaming)
            {
                request(1);
                streaming = true;
            }
            return in.read();
        }

        @Override
        public int read(final byte[] b, final int off, final int len) throws IOException
        {
            final int n = in.read(b, off, len);
            if (!streaming)
            {
                request(n);
                streaming = true;
            }
            else if (n > 0)
            {
                BYTES.addAndGet(n);
            }
            return n;
        }

        @Override
        public int read(final long position, final byte[] b, final int off, final int len) throws IOException
        {
            final int n = in.read(position, b, off, len);
            request(n);
            return n;
        }

        @Override
        public void readFully(final long position, final byte[] b, final int off, final int len) throws IOException
        {
            in.readFully(position, b, off, len);
            request(len);
        }

        @Override
        public void close() throws IOException
        {
            in.close();
        }
    }
}
