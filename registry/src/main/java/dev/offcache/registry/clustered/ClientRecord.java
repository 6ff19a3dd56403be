package dev.offcache.registry.clustered;

import org.agrona.collections.Long2ObjectHashMap;

/**
 * One client's de-duplication record in the clustered service: its latest session, floor, cached answers and open
 * waiters. Part of the service's snapshot ({@link ServiceSnapshot}).
 */
final class ClientRecord
{
    final Long2ObjectHashMap<byte[]> replies = new Long2ObjectHashMap<>();
    final Long2ObjectHashMap<byte[]> releases = new Long2ObjectHashMap<>();
    long sessionId;
    long floor;
    long lastSeenMs;
    int waiting;

    /**
     * Forgets the answers below the client's new floor (it has them).
     *
     * @param newFloor the client's lowest unanswered sequence.
     */
    void advanceFloor(final long newFloor)
    {
        if (newFloor <= floor)
        {
            return;
        }
        if (newFloor - floor <= replies.size() + releases.size())
        {
            for (long sequence = floor; sequence < newFloor; sequence++)
            {
                replies.remove(sequence);
                releases.remove(sequence);
            }
        }
        else
        {
            replies.keySet().removeIf(sequence -> sequence < newFloor);
            releases.keySet().removeIf(sequence -> sequence < newFloor);
        }
        floor = newFloor;
    }
}
