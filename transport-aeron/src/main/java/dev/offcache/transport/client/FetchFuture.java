package dev.offcache.transport.client;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

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

    private final AtomicInteger gate = new AtomicInteger(OPEN);
    private final ClientDuty duty;
    private volatile Thread deliveringThread;

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
     * Parks the calling thread until this future is done or {@code ns} have passed ({@link ClientDuty}).
     *
     * @param ns longest wait.
     * @return true if the thread was interrupted (its status is then clear).
     */
    boolean parkUntilDone(final long ns)
    {
        try
        {
            super.get(ns, TimeUnit.NANOSECONDS);
        }
        catch (final InterruptedException ex)
        {
            return true;
        }
        catch (final TimeoutException | ExecutionException | CancellationException ex)
        {
            // done with a failure, or not yet: the caller looks at isDone()
        }
        return false;
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
        return super.complete(value);
    }

    @Override
    public boolean completeExceptionally(final Throwable ex)
    {
        endDeliveries();
        return super.completeExceptionally(ex);
    }

    @Override
    public boolean cancel(final boolean mayInterruptIfRunning)
    {
        endDeliveries();
        return super.cancel(mayInterruptIfRunning);
    }

    @Override
    public void obtrudeValue(final Long value)
    {
        endDeliveries();
        super.obtrudeValue(value);
    }

    @Override
    public void obtrudeException(final Throwable ex)
    {
        endDeliveries();
        super.obtrudeException(ex);
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
