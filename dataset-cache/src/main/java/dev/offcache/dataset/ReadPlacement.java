package dev.offcache.dataset;

import java.util.Map;

import dev.offcache.core.shuffle.ShufflePartitionStore;
import dev.offcache.registry.state.Ids;

/**
 * Where an action's read-back runs: the executors whose partitions it reads locally (each through a shuffle store
 * over that executor's directory: the executor's own store, or a read-only one a co-located reader opened with
 * {@link ShufflePartitionStore#openReadOnly}), every other partition being fetched from its executor. The engine
 * passes one per action ({@link CachedDatasetCoordinator#execute(dev.offcache.dataset.CachedNode,
 * OutputReader, ReadPlacement)}), so read-back follows the task that runs the query. Immutable; holds the stores,
 * does not own them.
 */
public final class ReadPlacement
{
    private static final ReadPlacement REMOTE_ONLY = new ReadPlacement(Map.of());

    private final Map<String, ShufflePartitionStore> localStores;

    private ReadPlacement(final Map<String, ShufflePartitionStore> localStores)
    {
        this.localStores = localStores;
    }

    /**
     * A reader on no executor: every partition is fetched.
     *
     * @return the placement.
     */
    public static ReadPlacement remoteOnly()
    {
        return REMOTE_ONLY;
    }

    /**
     * A reader on one executor: its partitions are read locally through {@code store}.
     *
     * @param executorId the executor.
     * @param store      a store over its shuffle directory (not owned).
     * @return the placement.
     */
    public static ReadPlacement onExecutor(final String executorId, final ShufflePartitionStore store)
    {
        return onExecutors(Map.of(Ids.requireId(executorId, "executorId"), Ids.requireNonNull(store, "store")));
    }

    /**
     * A reader on a host with several executors: the partitions of each are read locally through its store.
     *
     * @param storesByExecutor a store over each local executor's shuffle directory (not owned); copied.
     * @return the placement.
     */
    public static ReadPlacement onExecutors(final Map<String, ShufflePartitionStore> storesByExecutor)
    {
        Ids.requireNonNull(storesByExecutor, "storesByExecutor");
        storesByExecutor.forEach((executorId, store) ->
        {
            Ids.requireId(executorId, "executorId");
            Ids.requireNonNull(store, "store of " + executorId);
        });
        return storesByExecutor.isEmpty() ? REMOTE_ONLY : new ReadPlacement(Map.copyOf(storesByExecutor));
    }

    /**
     * The store through which an executor's partitions are read locally.
     *
     * @param executorId the executor a location names.
     * @return its store, or null when its partitions are fetched.
     */
    public ShufflePartitionStore localStore(final String executorId)
    {
        return localStores.get(executorId);
    }

    @Override
    public String toString()
    {
        return localStores.isEmpty() ? "ReadPlacement[remote only]" : "ReadPlacement[local: " +
            localStores.keySet() + "]";
    }
}
