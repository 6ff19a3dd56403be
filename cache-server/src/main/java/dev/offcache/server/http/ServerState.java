package dev.offcache.server.http;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Whether the server is ready (what {@code /ready} says), whether it is closing (its listeners closed, so requests
 * on kept-alive connections are refused), and how many responses are streaming (for draining at shutdown).
 * Thread-safe. At shutdown {@code ready} turns false first, {@code closing} true after the unready delay.
 */
final class ServerState
{
    private volatile boolean ready;
    private volatile boolean closing;
    private final AtomicInteger activeResponses = new AtomicInteger();

    boolean ready()
    {
        return ready;
    }

    void ready(final boolean ready)
    {
        this.ready = ready;
    }

    boolean closing()
    {
        return closing;
    }

    void closing(final boolean closing)
    {
        this.closing = closing;
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

    /**
     * One response's share of the active count: taken when its request is picked up, given back once, when its
     * last byte has left (write completed) or the connection is gone.
     */
    final class InFlight
    {
        private boolean ended;

        InFlight()
        {
            responseStarted();
        }

        void end()
        {
            if (!ended)
            {
                ended = true;
                responseEnded();
            }
        }
    }
}
