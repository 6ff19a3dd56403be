package dev.offcache.hadoop.fs;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.contract.AbstractContractDeleteTest;
import org.apache.hadoop.fs.contract.AbstractFSContract;

/**
 * Hadoop's delete contract suite over {@link OffcacheFileSystem} wrapping the local file system.
 */
public class OffcacheLocalDeleteContractTest extends AbstractContractDeleteTest
{
    @Override
    protected AbstractFSContract createContract(final Configuration conf)
    {
        return new OffcacheLocalContract(conf);
    }
}
