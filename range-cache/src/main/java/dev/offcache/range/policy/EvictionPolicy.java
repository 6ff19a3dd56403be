package dev.offcache.range.policy;

/**
 * Decides which of a bounded set of {@code long} keys to keep: the index over which a store evicts. It holds keys
 * only; the store owns the memory behind them.
 *
 * <p>Single-threaded by contract: a store drives it from its one maintenance writer. Keys are non-negative (block
 * keys are, see {@code BlockKeys}). Implementations allocate nothing per call once constructed, so a store can
 * record accesses from its hit path without garbage.
 *
 * <p>The protocol of a store that misses on {@code key}: {@link #recordAccess(long)}, then, if
 * {@link #size()} == {@link #capacity()}, {@link #evict()} and drop the returned key, then {@link #add(long,
 * boolean)}. On a hit: {@link #recordAccess(long)}.
 */
public interface EvictionPolicy
{
    /**
     * Returned by {@link #evict()} when the policy holds no key.
     */
    long NO_KEY = -1;

    /**
     * The maximum number of keys.
     *
     * @return capacity in entries, at least 1.
     */
    int capacity();

    /**
     * The number of keys held now.
     *
     * @return resident entries.
     */
    int size();

    /**
     * Whether the key is resident.
     *
     * @param key a non-negative key.
     * @return true if held.
     */
    boolean contains(long key);

    /**
     * Records one access (a hit or a miss) to the key: updates its frequency and, if it is resident, its recency.
     *
     * @param key a non-negative key.
     */
    void recordAccess(long key);

    /**
     * Whether a low-priority newcomer should displace the entry {@link #evict()} would pick now.
     *
     * @param key a non-negative key that is not resident.
     * @return true to admit it; always true while there is room.
     */
    boolean admits(long key);

    /**
     * Removes one key to make room for a newcomer and returns it.
     *
     * @return the removed key, or {@link #NO_KEY} if the policy is empty.
     */
    long evict();

    /**
     * Adds a key that is not resident; the caller has made room.
     *
     * @param key         a non-negative key.
     * @param lowPriority true for speculative entries (prefetch), which are placed where they are evicted first
     *                    unless they are read.
     * @throws IllegalStateException    if the policy is full.
     * @throws IllegalArgumentException if the key is negative or already resident.
     */
    void add(long key, boolean lowPriority);

    /**
     * Removes a key if resident.
     *
     * @param key a non-negative key.
     * @return true if it was resident.
     */
    boolean remove(long key);
}
