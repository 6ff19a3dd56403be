package dev.offcache.hadoop.fs;

import java.io.IOException;
import java.net.URI;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.contract.localfs.LocalFSContract;

/**
 * Hadoop's local file system contract (the local file system's declared behaviour, in
 * {@code contract/offcache-localfs.xml}, since Hadoop's tests jar does not ship its XML), with the file system
 * under test being {@link OffcacheFileSystem} registered as {@code fs.file.impl} over the real
 * {@code LocalFileSystem}: every declared behaviour must hold through the cache.
 */
public class OffcacheLocalContract extends LocalFSContract
{
    /**
     * Creates an instance.
     *
     * @param conf the test's configuration.
     */
    public OffcacheLocalContract(final Configuration conf)
    {
        super(conf);
    }

    @Override
    protected String getContractXml()
    {
        return "contract/offcache-localfs.xml";
    }

    @Override
    protected FileSystem getLocalFS() throws IOException
    {
        final Configuration conf = new Configuration(getConf());
        conf.set("fs.file.impl", OffcacheFileSystem.class.getName());
        conf.setBoolean("fs.file.impl.disable.cache", true);
        conf.set("offcache.l1.mb", "16");
        conf.set("offcache.block.size", "16K");
        final FileSystem fs = FileSystem.get(URI.create("file:///"), conf);
        if (!(fs instanceof OffcacheFileSystem))
        {
            throw new IllegalStateException("fs.file.impl did not load offcache: " + fs.getClass());
        }
        return fs;
    }
}
