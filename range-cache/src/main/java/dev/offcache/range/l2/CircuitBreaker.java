package dev.offcache.range.l2;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;

/**
 * Decides whether a call may try the L2 server. Closed: every call passes and consecutive unresponsive calls are
 * counted; {@code threshold} of them open it. Open: every call skips L2 for {@code openNs}; after that the first
 * call that may probe (never a prefetch) is let through alone (half-open) while the others keep skipping. The
 * probe closes the breaker when the server answers and reopens it for another {@code openNs} when it does not.
 *
 * <p>Lock-free: the phase and the time it began are one immutable object swapped by CAS (allocation happens only
 * on a transition). Time comes from an injectable nanosecond clock so tests need not sleep.
 */
public final class CircuitBreaker
{
    /** What a call may do. */
    public enum Admission
    {
        /** The breaker is closed: try L2. */
        PASS,
        /** The breaker is half-open and this call is its single probe: try L2 and report the outcome. */
        PROBE,
        /** The breaker is open (or a probe is out): go straight to the origin. */
        SKIP
    }

    /** The breaker's state. */
    public enum State
    {
        /** L2 is used. */
        CLOSED,
        /** L2 is skipped until the open period ends. */
        OPEN,
        /** One probe is out; every other call skips L2. */
        HALF_OPEN
    }

    /** Receives transitions, for metrics. */
    public interface Listener
    {
        /** The breaker opened (from closed, or again after a failed probe). */
        void onOpen();

        /** A probe was let through. */
        void onProbe();

        /** A probe succeeded and the breaker closed. */
        void onClose();

        /** A listener that ignores everything. */
        Listener NONE = new Listener()
        {
            @Override
            public void onOpen()
            {
            }

            @Override
            public void onProbe()
            {
            }

            @Override
            public void onClose()
            {
            }
        };
    }

    private static final Phase CLOSED = new Phase(State.CLOSED, 0);

    private final int threshold;
    private final long openNs;
    private final LongSupplier nanoClock;
    private final Listener listener;
    private final AtomicReference<Phase> phase = new AtomicReference<>(CLOSED);
    private final AtomicInteger consecutiveUnresponsive = new AtomicInteger();

    /**
     * Creates a closed breaker.
     *
     * @param threshold consecutive unresponsive calls that open it (at least 1).
     * @param openNs    how long it stays open before a probe, in nanoseconds (positive).
     * @param nanoClock the time source ({@code System::nanoTime} outside tests).
     * @param listener  told about transitions.
     */
    public CircuitBreaker(final int threshold, final long openNs, final LongSupplier nanoClock, final Listener listener)
    {
        if (threshold < 1)
        {
            throw new IllegalArgumentException("breaker threshold must be >= 1: " + threshold);
        }
        if (openNs <= 0)
        {
            throw new IllegalArgumentException("breaker open time must be positive: " + openNs + " ns");
        }
        this.threshold = threshold;
        this.openNs = openNs;
        this.nanoClock = nanoClock;
        this.listener = listener;
    }

    /**
     * Asks whether a call may try L2.
     *
     * @param mayProbe false for calls that must never be the probe (prefetch).
     * @return what the call may do; a {@link Admission#PROBE} must be reported back.
     */
    public Admission admit(final boolean mayProbe)
    {
        final Phase current = phase.get();
        if (current.state == State.CLOSED)
        {
            return Admission.PASS;
        }
        if (current.state == State.HALF_OPEN || !mayProbe || nanoClock.getAsLong() - current.sinceNs < openNs)
        {
            return Admission.SKIP;
        }
        if (phase.compareAndSet(current, new Phase(State.HALF_OPEN, current.sinceNs)))
        {
            listener.onProbe();
            return Admission.PROBE;
        }
        return Admission.SKIP;
    }

    /**
     * The server answered a call (response headers arrived).
     *
     * @param admission what {@link #admit(boolean)} returned for the call.
     */
    public void onAnswered(final Admission admission)
    {
        if (admission == Admission.PROBE)
        {
            consecutiveUnresponsive.set(0);
            final Phase current = phase.get();
            if (current.state == State.HALF_OPEN && phase.compareAndSet(current, CLOSED))
            {
                listener.onClose();
            }
        }
        else if (admission == Admission.PASS)
        {
            consecutiveUnresponsive.set(0);
        }
    }

    /**
     * The server did not answer a call (connect failure, no headers in time, stall).
     *
     * @param admission what {@link #admit(boolean)} returned for the call.
     */
    public void onUnresponsive(final Admission admission)
    {
        if (admission == Admission.PROBE)
        {
            final Phase current = phase.get();
            if (current.state == State.HALF_OPEN &&
                phase.compareAndSet(current, new Phase(State.OPEN, nanoClock.getAsLong())))
            {
                listener.onOpen();
            }
        }
        else if (admission == Admission.PASS)
        {
            if (consecutiveUnresponsive.incrementAndGet() >= threshold)
            {
                final Phase current = phase.get();
                if (current.state == State.CLOSED &&
                    phase.compareAndSet(current, new Phase(State.OPEN, nanoClock.getAsLong())))
                {
                    consecutiveUnresponsive.set(0);
                    listener.onOpen();
                }
            }
        }
    }

    /**
     * The current state.
     *
     * @return the state.
     */
    public State state()
    {
        return phase.get().state;
    }

    /**
     * Consecutive unresponsive calls counted while closed.
     *
     * @return the count.
     */
    public int consecutiveUnresponsive()
    {
        return consecutiveUnresponsive.get();
    }

    private static final class Phase
    {
        final State state;
        final long sinceNs;

        Phase(final State state, final long sinceNs)
        {
            this.state = state;
            this.sinceNs = sinceNs;
        }
    }
}
