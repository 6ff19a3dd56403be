package dev.offcache.range.engine;

/**
 * The memory a {@link BlockStream} may hold ahead of its reader: the stream reserves each chunk's bytes before it
 * looks the chunk up or fetches it, and the consumer returns them ({@link #release(long)}) once it has written the
 * chunk out. The L2 server's global response budget is one; a reservation that does not fit parks a wake-up instead
 * of spinning. Implementations are thread-safe and lock-free on the reserve and release paths.
 */
public interface StreamCredit
{
    /**
     * Reserves bytes if they fit now.
     *
     * @param bytes at most one block.
     * @return whether they were reserved.
     */
    boolean tryReserve(long bytes);

    /**
     * Parks a wake-up that runs (once, on whatever thread returns bytes) when a block's worth fits again; the waiter
     * must then try again.
     *
     * @param wakeUp what to run, quickly (for example: schedule a retry on an event loop).
     */
    void await(Runnable wakeUp);

    /**
     * Returns reserved bytes.
     *
     * @param bytes what was reserved.
     */
    void release(long bytes);

    /**
     * Credit without a bound, for a consumer that holds nothing (tests, a reader that copies at once).
     *
     * @return a credit that always fits.
     */
    static StreamCredit unbounded()
    {
        return UnboundedCredit.INSTANCE;
    }

    /** The credit of {@link #unbounded()}. */
    final class UnboundedCredit implements StreamCredit
    {
        static final UnboundedCredit INSTANCE = new UnboundedCredit();

        private UnboundedCredit()
        {
        }

        @Override
        public boolean tryReserve(final long bytes)
        {
            return true;
        }

        @Override
        public void await(final Runnable wakeUp)
        {
            wakeUp.run();
        }

        @Override
        public void release(final long bytes)
        {
        }
    }
}
