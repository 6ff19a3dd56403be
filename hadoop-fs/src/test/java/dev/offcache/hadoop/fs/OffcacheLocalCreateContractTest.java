package dev.offcache.hadoop.fs;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.contract.AbstractContractCreateTest;
import org.apache.hadoop.fs.contract.AbstractFSContract;

/**
 * Hadoop's create contract suite over {@link OffcacheFileSystem} wrapping the local file system.
 */
public class OffcacheLocalCreateContractTest extends AbstractContractCreateTest
{
    @Override
    protected AbstractFSContract createContract(final Configuration conf)
    {
        return new OffcacheLocalContract(conf);
    }
}
