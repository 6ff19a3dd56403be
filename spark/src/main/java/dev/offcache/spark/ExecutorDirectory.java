package dev.offcache.spark;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.offcache.core.shuffle.PartitionId;
import dev.offcache.core.shuffle.ShufflePartitionStore;
import dev.offcache.dataset.ExecutorStages;
import dev.offcache.registry.state.LiveExecutors;
import dev.offcache.registry.state.StageRef;

/**
 * The driver's view of the executors that run offcache: registered by their plugin, kept alive by heartbeats, removed
 * on Spark's executor-removed event or a silent heartbeat timeout. It is the registry's {@link LiveExecutors} (a hit
 * on a removed executor is a miss) and the cleanup's {@link ExecutorStages}: a deletion for an executor in this JVM
 * (local mode) runs at once, one for another JVM waits for that executor's next heartbeat.
 */
final class ExecutorDirectory implements LiveExecutors, ExecutorStages
{
    private static final Logger LOG = LoggerFactory.getLogger(ExecutorDirectory.class);
    private final Map<String, Member> members = new ConcurrentHashMap<>();

    /** One executor: its registration, last heartbeat, counters and pending commands. */
    static final class Member
    {
        final Messages.Register registration;
        final ConcurrentLinkedQueue<Messages.Command> commands = new ConcurrentLinkedQueue<>();
        volatile long lastSeenNs;
        volatile Messages.Heartbeat lastHeartbeat;

        Member(final Messages.Register registration, final long nowNs)
        {
            this.registration = registration;
            this.lastSeenNs = nowNs;
        }
    }

    void register(final Messages.Register registration, final long nowNs)
    {
        members.put(registration.executorId(), new Member(registration, nowNs));
    }

    Member remove(final String executorId)
    {
        return members.remove(executorId);
    }

    Member member(final String executorId)
    {
        return members.get(executorId);
    }

    Collection<Member> members()
    {
        return members.values();
    }

    Map<String, Messages.Endpoint> endpoints()
    {
        final Map<String, Messages.Endpoint> endpoints = new HashMap<>();
        members.forEach((id, member) -> endpoints.put(id,
            new Messages.Endpoint(member.registration.channel(), member.registration.streamId())));
        return endpoints;
    }

    String hostOf(final String executorId)
    {
        final Member member = members.get(executorId);
        return member == null ? null : member.registration.host();
    }

    @Override
    public boolean isLive(final String executorId)
    {
        return members.containsKey(executorId);
    }

    @Override
    public Collection<String> executorIds()
    {
        return List.copyOf(members.keySet());
    }

    @Override
    public void deleteJob(final String executorId, final String jobId, final Set<StageRef> keep)
    {
        final List<Integer> keepStages = new ArrayList<>();
        for (final StageRef stage : keep)
        {
            if (stage.jobId().equals(jobId))
            {
                keepStages.add(stage.stageId());
            }
        }
        final ShufflePartitionStore local = localStore(executorId);
        if (local != null)
        {
            local.deleteJob(jobId, (job, stageId) -> keepStages.contains(stageId));
            return;
        }
        send(executorId, new Messages.DeleteJob(jobId, List.copyOf(keepStages)));
    }

    @Override
    public void deleteStage(final String executorId, final StageRef stage)
    {
        final ShufflePartitionStore local = localStore(executorId);
        if (local != null)
        {
            local.deleteStage(stage.jobId(), stage.stageId());
            return;
        }
        send(executorId, new Messages.DeleteStage(stage.jobId(), stage.stageId()));
    }

    /**
     * Deletes one partition's file in an executor's store (a materialization attempt that lost); nothing when the
     * executor is gone (its directory goes with it, or to the next sweep of dead executors' directories).
     *
     * @param executorId the executor that ran the attempt.
     * @param jobId      the materialization.
     * @param stageId    its stage.
     * @param partition  the partition.
     */
    void deletePartition(final String executorId, final String jobId, final int stageId, final int partition)
    {
        final ShufflePartitionStore local = localStore(executorId);
        if (local != null)
        {
            deletePartition(local, jobId, stageId, partition);
            return;
        }
        final Member member = members.get(executorId);
        if (member != null)
        {
            member.commands.add(new Messages.DeletePartition(jobId, stageId, partition));
        }
    }

    static void deletePartition(final ShufflePartitionStore store, final String jobId, final int stageId,
        final int partition)
    {
        final Path path = store.pathOf(new PartitionId(jobId, stageId, partition));
        try
        {
            Files.deleteIfExists(path);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("offcache could not delete " + path, ex);
        }
        // The stage's and the job's directories go with their last file (a failed materialization leaves nothing);
        // a writer creating a file there meanwhile makes its directory again (ShufflePartitionStore.openWriter).
        deleteIfEmpty(path.getParent());
        deleteIfEmpty(path.getParent().getParent());
    }

    private static void deleteIfEmpty(final Path directory)
    {
        try
        {
            Files.deleteIfExists(directory);
        }
        catch (final DirectoryNotEmptyException ex)
        {
            // still holds files: it stays
        }
        catch (final IOException ex)
        {
            LOG.debug("offcache could not delete the empty directory {}", directory, ex);
        }
    }

    /**
     * Tells every executor on a host to delete the directories of dead executors there (one on that host was lost:
     * if it was killed, its directory is left).
     *
     * @param host the lost executor's host.
     */
    void sweepDeadExecutorsOn(final String host)
    {
        final OffcacheExecutor local = OffcacheExecutor.current();
        for (final Member member : members.values())
        {
            if (!member.registration.host().equals(host))
            {
                continue;
            }
            if (local != null && local.executorId().equals(member.registration.executorId()))
            {
                local.sweepDeadExecutors();
            }
            else
            {
                member.commands.add(new Messages.SweepDeadExecutors());
            }
        }
    }

    private void send(final String executorId, final Messages.Command command)
    {
        final Member member = members.get(executorId);
        if (member == null)
        {
            // StageCleanup counts this as a failure: the executor is gone, and its files with it.
            throw new IllegalStateException("executor " + executorId + " is not registered");
        }
        member.commands.add(command);
    }

    private static ShufflePartitionStore localStore(final String executorId)
    {
        final OffcacheExecutor local = OffcacheExecutor.current();
        return local != null && local.executorId().equals(executorId) ? local.store() : null;
    }

    List<Messages.Command> drain(final Member member)
    {
        final List<Messages.Command> drained = new ArrayList<>();
        Messages.Command command;
        while ((command = member.commands.poll()) != null)
        {
            drained.add(command);
        }
        return drained;
    }
}
