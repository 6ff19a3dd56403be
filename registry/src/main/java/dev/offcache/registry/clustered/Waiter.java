package dev.offcache.registry.clustered;

/**
 * A waiter registered in the clustered service's state machine: the command that has to be released.
 *
 * @param clientId the client that sent the waiting ACQUIRE or AWAIT.
 * @param sequence its sequence.
 */
record Waiter(long clientId, long sequence)
{
}
