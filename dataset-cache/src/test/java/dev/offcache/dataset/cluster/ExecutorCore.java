package dev.offcache.dataset.cluster;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;

import org.agrona.concurrent.UnsafeBuffer;

import dev.offcache.core.shuffle.PartitionId;
import dev.offcache.core.shuffle.PartitionInfo;
import dev.offcache.core.shuffle.PartitionWriter;
import dev.offcache.core.shuffle.PinSet;
import dev.offcache.core.shuffle.ShufflePartitionStore;
import dev.offcache.registry.state.StageRef;
import dev.offcache.transport.media.AeronMedia;
import dev.offcache.transport.server.PayloadServer;
import dev.offcache.transport.source.ShufflePartitionSource;

/**
 * One executor's state, the same in-process and in a child JVM: a work dir, a shuffle store, an Aeron payload server
 * serving that store. Job cleanup calls carry the pins to honour (the scheduler's {@code pinnedStages()} at call
 * time), which the store takes per call. Calls are serialized.
 */
final class ExecutorCore implements AutoCloseable
{
    private final String id;
    private final ShufflePartitionStore store;
    private final ShufflePartitionSource source;
    private final PayloadServer server;

    ExecutorCore(final String id, final Path workDir, final AeronMedia media, final String requestChannel,
        final int requestStreamId)
    {
        this.id = id;
        this.store = new ShufflePartitionStore(workDir, PinSet.NONE);
        this.source = new ShufflePartitionSource(store);
        this.server = PayloadServer.launch(new PayloadServer.Context().aeron(media.aeron()).payloadSource(source)
            .requestChannel(requestChannel).requestStreamId(requestStreamId));
    }

    String id()
    {
        return id;
    }

    ShufflePartitionStore store()
    {
        return store;
    }

    synchronized PartitionInfo write(final String jobId, final int stageId, final int partitionId, final long seed,
        final int rows)
    {
        final UnsafeBuffer content = ToyDataset.partition(seed, partitionId, rows);
        try (PartitionWriter writer = store.openWriter(new PartitionId(jobId, stageId, partitionId)))
        {
            writer.write(content, 0, content.capacity());
            return writer.commit();
        }
    }

    synchronized int deleteJob(final String jobId, final Set<StageRef> pinned)
    {
        return store.deleteJob(jobId, (job, stageId) -> pinned.contains(new StageRef(job, stageId)));
    }

    synchronized boolean deleteStage(final String jobId, final int stageId)
    {
        return store.deleteStage(jobId, stageId);
    }

    boolean stageExists(final String jobId, final int stageId)
    {
        return Files.isDirectory(store.workDir().resolve(jobId).resolve(Integer.toString(stageId)));
    }

    boolean jobExists(final String jobId)
    {
        return Files.exists(store.workDir().resolve(jobId));
    }

    public void close()
    {
        server.close();
    }
}
