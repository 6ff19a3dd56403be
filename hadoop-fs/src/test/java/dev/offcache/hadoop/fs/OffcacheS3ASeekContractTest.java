package dev.offcache.hadoop.fs;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.contract.AbstractContractSeekTest;
import org.apache.hadoop.fs.contract.AbstractFSContract;

/**
 * Hadoop's seek contract suite over {@link OffcacheFileSystem} wrapping S3A against S3Proxy.
 */
public class OffcacheS3ASeekContractTest extends AbstractContractSeekTest
{
    @Override
    protected AbstractFSContract createContract(final Configuration conf)
    {
        return new OffcacheS3AContract(conf);
    }
}
