package dev.offcache.server.http;

import java.util.concurrent.atomic.AtomicInteger;

/** Whether the server is ready, and how many responses are streaming (for draining at shutdown). Thread-safe. */
final class ServerState
{
    private volatile boolean ready;
    private final AtomicInteger activeResponses = new AtomicInteger();

    boolean ready()
    {
        return ready;
    }

    void ready(final boolean ready)
    {
        this.ready = ready;
    }

    void responseStarted()
    {
        activeResponses.incrementAndGet();
    }

    void responseEnded()
    {
        activeResponses.decrementAndGet();
    }

    int activeResponses()
    {
        return activeResponses.get();
    }
}
