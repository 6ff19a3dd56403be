package dev.offcache.transport.client;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceFieldUpdater;
import java.util.concurrent.locks.LockSupport;

/**
 * The future of one fetch, and the gate between the client thread's writes into the fetch's destination (or calls of
 * its handler) and the fetch's end. Once this future is done, by the client (answer, error frame, timeout, lost
 * connection, close) or by the caller ({@link #cancel}, {@link #complete}, {@link #completeExceptionally}, a
 * timeout stage), no byte reaches the destination any more: the client opens the gate around every piece it
 * delivers, and ending the future closes it, waiting for a piece being copied at that instant to finish. So a
 * caller may unmap or reuse the destination as soon as the future is done, whatever ended it.
 *
 * <p>One compare-and-set on each side of a delivered piece (a fragment, up to one MTU); no lock.
 *
 * <p>{@link #join()} and {@link #get()} run the client's duty cycle on the waiting thread when they can
 * ({@link ClientDuty}), so the caller polls its own response instead of parking until the agent thread wakes it.
 */
final class FetchFuture extends CompletableFuture<Long>
{
    private static final int OPEN = 0;
    private static final int DELIVERING = 1;
    /** Delivering, and an end is waiting for the piece to finish: no piece may start after it. */
    private static final int ENDING = 2;
    private static final int ENDED = 3;

    private static final AtomicReferenceFieldUpdater<FetchFuture, Thread> PARKED =
        AtomicReferenceFieldUpdater.newUpdater(FetchFuture.class, Thread.class, "parked");

    private final AtomicInteger gate = new AtomicInteger(OPEN);
    private final ClientDuty duty;
    private volatile Thread deliveringThread;
    /** A thread parked in {@link #parkUntilDone} (the first of them), unparked when the future completes. */
    private volatile Thread parked;

    FetchFuture(final ClientDuty duty)
    {
        this.duty = duty;
    }

    @Override
    public Long join()
    {
        if (duty != null && !isDone() && duty.awaitDone(this, false, false, 0))
        {
            Thread.currentThread().interrupt();
        }
        return super.join();
    }

    @Override
    public Long get() throws InterruptedException, ExecutionException
    {
        if (duty != null && !isDone() && duty.awaitDone(this, true, false, 0))
        {
            throw new InterruptedException();
        }
        return super.get();
    }

    @Override
    public Long get(final long timeout, final TimeUnit unit)
        throws InterruptedException, ExecutionException, TimeoutException
    {
        if (duty != null && !isDone())
        {
            if (duty.awaitDone(this, true, true, System.nanoTime() + unit.toNanos(timeout)))
            {
                throw new InterruptedException();
            }
            return isDone() ? super.get() : super.get(0, TimeUnit.NANOSECONDS);
        }
        return super.get(timeout, unit);
    }

    /**
     * Parks the calling thread until this future is done, {@code ns} have passed or the thread is interrupted
     * ({@link ClientDuty}). Allocates nothing: the first thread parked here is unparked by the completion; any other
     * wakes at the end of its {@code ns}.
     *
     * @param ns longest wait.
     * @return true if the thread was interrupted (its status is then clear).
     */
    boolean parkUntilDone(final long ns)
    {
        final Thread thread = Thread.currentThread();
        final boolean registered = PARKED.compareAndSet(this, null, thread);
        if (!isDone())
        {
            LockSupport.parkNanos(this, ns);
        }
        if (registered)
        {
            parked = null;
        }
        return Thread.interrupted();
    }

    /**
     * Opens the gate for one piece (client thread).
     *
     * @return false when the fetch has ended: deliver nothing.
     */
    boolean beginDelivery()
    {
        if (gate.compareAndSet(OPEN, DELIVERING))
        {
            deliveringThread = Thread.currentThread();
            return true;
        }
        return false;
    }

    /**
     * Closes the gate after one piece (client thread). If the fetch ended meanwhile (from within the handler) the
     * gate stays ended.
     */
    void endDelivery()
    {
        deliveringThread = null;
        if (!gate.compareAndSet(DELIVERING, OPEN) && gate.get() == ENDING)
        {
            gate.set(ENDED);
        }
    }

    /**
     * Whether the fetch has ended (or is ending): nothing more may be delivered.
     *
     * @return true once ended.
     */
    boolean isEnded()
    {
        return gate.get() >= ENDING;
    }

    @Override
    public boolean complete(final Long value)
    {
        endDeliveries();
        final boolean ended = super.complete(value);
        unparkWaiter();
        return ended;
    }

    @Override
    public boolean completeExceptionally(final Throwable ex)
    {
        endDeliveries();
        final boolean ended = super.completeExceptionally(ex);
        unparkWaiter();
        return ended;
    }

    @Override
    public boolean cancel(final boolean mayInterruptIfRunning)
    {
        endDeliveries();
        final boolean ended = super.cancel(mayInterruptIfRunning);
        unparkWaiter();
        return ended;
    }

    @Override
    public void obtrudeValue(final Long value)
    {
        endDeliveries();
        super.obtrudeValue(value);
        unparkWaiter();
    }

    @Override
    public void obtrudeException(final Throwable ex)
    {
        endDeliveries();
        super.obtrudeException(ex);
        unparkWaiter();
    }

    private void unparkWaiter()
    {
        // after the result is set: a waiter that registered before it looked at isDone() is seen here
        final Thread thread = parked;
        if (thread != null)
        {
            LockSupport.unpark(thread);
        }
    }

    private void endDeliveries()
    {
        while (true)
        {
            final int state = gate.get();
            if (state == ENDED)
            {
                return;
            }
            if (state == OPEN && gate.compareAndSet(OPEN, ENDED))
            {
                return;
            }
            if (state == DELIVERING || state == ENDING)
            {
                if (deliveringThread == Thread.currentThread())
                {
                    // Ended by the handler of the piece being delivered: nothing follows it.
                    gate.set(ENDED);
                    return;
                }
                if (state == ENDING || gate.compareAndSet(DELIVERING, ENDING))
                {
                    // A piece is being copied right now; no other starts. Wait for it: one fragment's copy.
                    while (gate.get() != ENDED)
                    {
                        Thread.onSpinWait();
                    }
                    return;
                }
            }
        }
    }
}
