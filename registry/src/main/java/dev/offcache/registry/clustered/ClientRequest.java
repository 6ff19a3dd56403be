package dev.offcache.registry.clustered;

import java.util.concurrent.CompletableFuture;

import org.agrona.ExpandableArrayBuffer;

import dev.offcache.registry.api.Resolution;
import dev.offcache.registry.command.CommandType;

/**
 * One command of a {@link RegistryClusterClient}: its encoded bytes, its future (and the waiter's resolution of an
 * ACQUIRE or AWAIT), and what the client's agent knows of it (its sequence, when it was sent, its reply so far).
 * Created on the caller's thread; after the hand-off only the agent touches it.
 */
final class ClientRequest
{
    final CommandType type;
    final byte[] bytes;
    final CompletableFuture<Object> future = new CompletableFuture<>();
    CompletableFuture<Resolution> resolution;
    long sequence;
    long sentNs;
    boolean replied;
    boolean done;
    Resolution earlyRelease;
    ExpandableArrayBuffer assembly;
    int assemblyLength;
    int assemblyChunk;

    ClientRequest(final CommandType type, final byte[] bytes)
    {
        this.type = type;
        this.bytes = bytes;
    }

    void fail(final Throwable cause)
    {
        done = true;
        future.completeExceptionally(cause);
        if (resolution != null)
        {
            resolution.completeExceptionally(cause);
        }
    }
}
