package dev.offcache.dataset.cluster;

import java.nio.file.Path;
import java.util.Set;

import dev.offcache.core.shuffle.ShufflePartitionStore;
import dev.offcache.registry.state.PartitionLocation;
import dev.offcache.registry.state.StageRef;
import dev.offcache.transport.media.AeronMedia;
import dev.offcache.transport.media.TransportChannels;

/**
 * An executor in the scheduler's JVM, serving its store over IPC on the shared embedded driver.
 */
final class InProcessExecutor implements ExecutorNode
{
    private final ExecutorCore core;
    private final int streamId;
    private boolean closed;

    InProcessExecutor(final String id, final Path workDir, final AeronMedia media, final int streamId)
    {
        this.streamId = streamId;
        this.core = new ExecutorCore(id, workDir, media, TransportChannels.IPC, streamId);
    }

    ShufflePartitionStore store()
    {
        return core.store();
    }

    public String id()
    {
        return core.id();
    }

    public String requestChannel()
    {
        return TransportChannels.IPC;
    }

    public int requestStreamId()
    {
        return streamId;
    }

    public PartitionLocation runTask(final String jobId, final int stageId, final int partitionId, final long seed,
        final int rows)
    {
        return PartitionLocation.of(id(), core.write(jobId, stageId, partitionId, seed, rows));
    }

    public synchronized boolean isAlive()
    {
        return !closed;
    }

    public int deleteJob(final String jobId, final Set<StageRef> keep)
    {
        return core.deleteJob(jobId, keep);
    }

    public boolean deleteStage(final StageRef stage)
    {
        return core.deleteStage(stage.jobId(), stage.stageId());
    }

    public boolean stageExists(final String jobId, final int stageId)
    {
        return core.stageExists(jobId, stageId);
    }

    public boolean jobExists(final String jobId)
    {
        return core.jobExists(jobId);
    }

    public void kill()
    {
        close();
    }

    public synchronized void close()
    {
        if (!closed)
        {
            closed = true;
            core.close();
        }
    }
}
