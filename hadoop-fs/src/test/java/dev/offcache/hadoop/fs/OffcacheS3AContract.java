package dev.offcache.hadoop.fs;

import java.io.IOException;
import java.net.URI;
import java.util.Map;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.contract.AbstractFSContract;

import dev.offcache.testkit.s3.S3ProxyServer;

/**
 * Hadoop's contract for an S3-like blob store ({@code contract/offcache-s3a.xml}), with the file system under test
 * being {@link OffcacheFileSystem} registered as {@code fs.s3a.impl} over the real {@code S3AFileSystem}, talking to
 * S3Proxy in-process on 127.0.0.1. One proxy serves every suite of the run (started on first use, stopped at exit).
 */
public class OffcacheS3AContract extends AbstractFSContract
{
    /** The bucket the suites write into. */
    public static final String BUCKET = "contract";

    private static S3ProxyServer proxy;
    private FileSystem fs;

    /**
     * Creates an instance.
     *
     * @param conf the test's configuration.
     */
    public OffcacheS3AContract(final Configuration conf)
    {
        super(conf);
        addConfResource("contract/offcache-s3a.xml");
    }

    /**
     * The shared proxy, started on first use.
     *
     * @return the running proxy.
     * @throws IOException when it cannot start.
     */
    public static synchronized S3ProxyServer proxy() throws IOException
    {
        if (proxy == null)
        {
            try
            {
                proxy = S3ProxyServer.start(BUCKET);
            }
            catch (final Exception ex)
            {
                throw new IOException("S3Proxy did not start", ex);
            }
            final S3ProxyServer started = proxy;
            Runtime.getRuntime().addShutdownHook(new Thread(started::close, "s3proxy-stop"));
        }
        return proxy;
    }

    /**
     * The S3A settings for the proxy with offcache registered for {@code s3a}.
     *
     * @param conf where to put them.
     * @return {@code conf}.
     * @throws IOException when the proxy cannot start.
     */
    public static Configuration configure(final Configuration conf) throws IOException
    {
        for (final Map.Entry<String, String> setting : proxy().s3aSettings().entrySet())
        {
            conf.set(setting.getKey(), setting.getValue());
        }
        conf.set("fs.s3a.impl", OffcacheFileSystem.class.getName());
        conf.setBoolean("fs.s3a.impl.disable.cache", true);
        conf.set("fs.s3a.bucket.probe", "0");
        conf.set("offcache.l1.mb", "16");
        conf.set("offcache.block.size", "16K");
        return conf;
    }

    @Override
    public void init() throws IOException
    {
        super.init();
        fs = FileSystem.get(URI.create("s3a://" + BUCKET + "/"), configure(getConf()));
        if (!(fs instanceof OffcacheFileSystem))
        {
            throw new IllegalStateException("fs.s3a.impl did not load offcache: " + fs.getClass());
        }
    }

    @Override
    public FileSystem getTestFileSystem()
    {
        return fs;
    }

    @Override
    public String getScheme()
    {
        return "s3a";
    }

    @Override
    public Path getTestPath()
    {
        return fs.makeQualified(new Path("/test"));
    }
}
