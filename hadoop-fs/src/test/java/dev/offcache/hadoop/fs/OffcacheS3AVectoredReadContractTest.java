package dev.offcache.hadoop.fs;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.contract.AbstractContractVectoredReadTest;
import org.apache.hadoop.fs.contract.AbstractFSContract;

/**
 * Hadoop's vectored read contract suite (direct and heap buffers) over {@link OffcacheFileSystem} wrapping S3A
 * against S3Proxy.
 */
public class OffcacheS3AVectoredReadContractTest extends AbstractContractVectoredReadTest
{
    /**
     * Creates an instance.
     *
     * @param bufferType {@code direct} or {@code array}, from the suite's parameters.
     */
    public OffcacheS3AVectoredReadContractTest(final String bufferType)
    {
        super(bufferType);
    }

    @Override
    protected AbstractFSContract createContract(final Configuration conf)
    {
        return new OffcacheS3AContract(conf);
    }
}
