package dev.offcache.hadoop.fs;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.contract.AbstractContractMkdirTest;
import org.apache.hadoop.fs.contract.AbstractFSContract;

/**
 * Hadoop's mkdir contract suite over {@link OffcacheFileSystem} wrapping the local file system.
 */
public class OffcacheLocalMkdirContractTest extends AbstractContractMkdirTest
{
    @Override
    protected AbstractFSContract createContract(final Configuration conf)
    {
        return new OffcacheLocalContract(conf);
    }
}
