package dev.offcache.hadoop.fs;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.contract.AbstractContractRenameTest;
import org.apache.hadoop.fs.contract.AbstractFSContract;

/**
 * Hadoop's rename contract suite over {@link OffcacheFileSystem} wrapping the local file system.
 */
public class OffcacheLocalRenameContractTest extends AbstractContractRenameTest
{
    @Override
    protected AbstractFSContract createContract(final Configuration conf)
    {
        return new OffcacheLocalContract(conf);
    }
}
