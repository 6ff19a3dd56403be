package dev.offcache.hadoop.fs;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.contract.AbstractContractOpenTest;
import org.apache.hadoop.fs.contract.AbstractFSContract;

/**
 * Hadoop's open contract suite over {@link OffcacheFileSystem} wrapping the local file system.
 */
public class OffcacheLocalOpenContractTest extends AbstractContractOpenTest
{
    @Override
    protected AbstractFSContract createContract(final Configuration conf)
    {
        return new OffcacheLocalContract(conf);
    }
}
