package dev.offcache.hadoop.fs;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.contract.AbstractContractOpenTest;
import org.apache.hadoop.fs.contract.AbstractFSContract;

/**
 * Hadoop's open contract suite over {@link OffcacheFileSystem} wrapping S3A against S3Proxy.
 */
public class OffcacheS3AOpenContractTest extends AbstractContractOpenTest
{
    @Override
    protected AbstractFSContract createContract(final Configuration conf)
    {
        return new OffcacheS3AContract(conf);
    }

    /**
     * S3A reports every object as encrypted (S3's encryption at rest), empty ones too; Hadoop's own S3A suite says
     * the same.
     */
    @Override
    protected boolean areZeroByteFilesEncrypted()
    {
        return true;
    }
}
