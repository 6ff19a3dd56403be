package dev.offcache.server.log;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

import org.slf4j.Logger;

/**
 * A WARN line per event for events that can come in floods (5xx answers, failed prefetches, cut streams): at most
 * {@code perWindow} lines per window, the rest counted and reported on the next line that gets through, so a storm
 * costs a few lines a second, not the disk. Lock-free; an event that is suppressed costs two atomic operations and
 * allocates nothing.
 */
public final class RateLimitedWarning
{
    private final Logger log;
    private final int perWindow;
    private final long windowNanos;
    private final LongSupplier clock;
    private final AtomicLong windowStart = new AtomicLong(Long.MIN_VALUE);
    private final AtomicLong inWindow = new AtomicLong();
    private final AtomicLong suppressed = new AtomicLong();

    /**
     * A limiter over a logger.
     *
     * @param log         where the lines go.
     * @param perWindow   lines allowed per window.
     * @param windowNanos the window.
     * @param clock       nanosecond clock ({@code System::nanoTime}).
     */
    public RateLimitedWarning(final Logger log, final int perWindow, final long windowNanos, final LongSupplier clock)
    {
        this.log = log;
        this.perWindow = perWindow;
        this.windowNanos = windowNanos;
        this.clock = clock;
    }

    /**
     * Ten lines a second.
     *
     * @param log where the lines go.
     */
    public RateLimitedWarning(final Logger log)
    {
        this(log, 10, 1_000_000_000L, System::nanoTime);
    }

    /**
     * Logs a WARN line unless this window's lines are spent.
     *
     * @param format SLF4J format.
     * @param args   its arguments.
     * @return whether the line was written.
     */
    public boolean warn(final String format, final Object... args)
    {
        final long now = clock.getAsLong();
        final long start = windowStart.get();
        if (start == Long.MIN_VALUE || now - start >= windowNanos)
        {
            if (windowStart.compareAndSet(start, now))
            {
                inWindow.set(0);
            }
        }
        if (inWindow.incrementAndGet() > perWindow)
        {
            suppressed.incrementAndGet();
            return false;
        }
        if (log.isWarnEnabled())
        {
            final long dropped = suppressed.getAndSet(0);
            log.warn(dropped == 0 ? format : format + " (" + dropped + " similar lines suppressed)", args);
        }
        return true;
    }

    /**
     * Lines not written since the last one that was.
     *
     * @return the count.
     */
    public long suppressed()
    {
        return suppressed.get();
    }
}
