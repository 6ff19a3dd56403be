package dev.offcache.hadoop.fs;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.contract.AbstractContractVectoredReadTest;
import org.apache.hadoop.fs.contract.AbstractFSContract;

/**
 * Hadoop's vectored read contract suite (direct and heap buffers) over {@link OffcacheFileSystem} wrapping the
 * local file system.
 */
public class OffcacheLocalVectoredReadContractTest extends AbstractContractVectoredReadTest
{
    /**
     * Creates an instance.
     *
     * @param bufferType {@code direct} or {@code array}, from the suite's parameters.
     */
    public OffcacheLocalVectoredReadContractTest(final String bufferType)
    {
        super(bufferType);
    }

    @Override
    protected AbstractFSContract createContract(final Configuration conf)
    {
        return new OffcacheLocalContract(conf);
    }
}
