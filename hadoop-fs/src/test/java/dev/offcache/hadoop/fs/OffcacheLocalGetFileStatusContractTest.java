package dev.offcache.hadoop.fs;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.contract.AbstractContractGetFileStatusTest;
import org.apache.hadoop.fs.contract.AbstractFSContract;

/**
 * Hadoop's getfilestatus contract suite over {@link OffcacheFileSystem} wrapping the local file system.
 */
public class OffcacheLocalGetFileStatusContractTest extends AbstractContractGetFileStatusTest
{
    @Override
    protected AbstractFSContract createContract(final Configuration conf)
    {
        return new OffcacheLocalContract(conf);
    }
}
