package dev.offcache.registry.front;

import java.lang.invoke.VarHandle;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import com.lmax.disruptor.AlertException;
import com.lmax.disruptor.BusySpinWaitStrategy;
import com.lmax.disruptor.EventPoller;
import com.lmax.disruptor.RingBuffer;
import com.lmax.disruptor.SequenceBarrier;
import com.lmax.disruptor.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.offcache.registry.command.CommandType;
import dev.offcache.registry.state.CacheKey;
import dev.offcache.registry.state.DatasetSchema;
import dev.offcache.registry.state.PartitionLocation;

/**
 * The registry's ring and who runs its single writer ({@link CommandHandler}). One thread at a time holds the writer
 * role (a CAS on its thread id): the registry thread when there is one (it waits on the ring and drains it batch by
 * batch), else the caller that published a command and found the role free, who drains the ring (its own command
 * and whatever others published) before it lets go. A caller that finds the role taken spins, then yields, briefly
 * for its answer, taking the role over as soon as it is free. {@link CacheRegistry} decides what to publish; this
 * class only moves commands to the writer.
 */
final class WriterRole
{
    private static final Logger LOG = LoggerFactory.getLogger(WriterRole.class);
    /** How long a caller spins, then yields, for its answer while another caller runs the writer's step. */
    private static final int HELP_SPINS = 200;
    private static final int HELP_YIELDS = 100;
    /** Thread ids are positive. */
    private static final long NO_WRITER = 0;

    private final RingBuffer<RegistryCommand> ring;
    private final EventPoller<RegistryCommand> poller;
    private final CommandHandler handler;
    /**
     * The id of the thread holding the writer role, {@link #NO_WRITER} for none. An id rather than the
     * {@code Thread}: a reference CAS into this long-lived object would also pay the GC's card-marking barrier.
     */
    private final AtomicLong writer = new AtomicLong(NO_WRITER);
    private final boolean callerRuns;
    private final long shutdownTimeoutMs;
    private final Thread registryThread;
    private final SequenceBarrier barrier;

    /**
     * Creates the ring and, unless callers run the writer, starts the registry thread.
     *
     * @param ctx     the registry's concluded configuration.
     * @param handler the writer's step, recovered.
     */
    WriterRole(final CacheRegistry.Context ctx, final CommandHandler handler)
    {
        this.handler = handler;
        this.callerRuns = !ctx.writerThread();
        this.shutdownTimeoutMs = ctx.shutdownTimeoutMs();
        ring = RingBuffer.createMultiProducer(RegistryCommand::new, ctx.ringSize(),
            callerRuns ? new BusySpinWaitStrategy() : ctx.waitStrategy());
        poller = ring.newPoller();
        ring.addGatingSequences(poller.getSequence());
        if (callerRuns)
        {
            barrier = null;
            registryThread = null;
        }
        else
        {
            barrier = ring.newBarrier();
            registryThread = new Thread(this::runWriterThread, ctx.threadName());
            registryThread.setDaemon(true);
            registryThread.start();
        }
    }

    /**
     * Whether callers run the writer's step (no registry thread).
     *
     * @return true when callers run it.
     */
    boolean callerRuns()
    {
        return callerRuns;
    }

    /**
     * Whether the calling thread holds the writer role now (it runs inside the writer's step: a continuation).
     *
     * @return true when it does.
     */
    boolean heldByCurrentThread()
    {
        return writer.get() == Thread.currentThread().getId();
    }

    /**
     * Publishes a command to the ring (blocking while it is full).
     *
     * @return its ring sequence.
     */
    long publish(
        final CommandType type, final CacheKey key, final String jobId, final String id,
        final DatasetSchema schema, final List<PartitionLocation> locations,
        final CompletableFuture<Object> future)
    {
        final long sequence = ring.next();
        try
        {
            ring.get(sequence).set(type, key, jobId, id, schema, locations, future);
        }
        finally
        {
            ring.publish(sequence);
        }
        return sequence;
    }

    /**
     * The fast path of a caller that runs the writer: when nobody else holds the role and nothing published is left
     * unapplied (so no earlier command of this thread either), the command is applied at once, as a batch of its
     * own, without a ring slot. Anything others published meanwhile is drained before letting go for good.
     *
     * @return the command's future, complete; null when it was not applied (it has to go through the ring).
     */
    CompletableFuture<Object> applyNow(
        final CommandType type, final CacheKey key, final String jobId, final String id,
        final DatasetSchema schema, final List<PartitionLocation> locations)
    {
        if (writer.get() != NO_WRITER || !writer.compareAndSet(NO_WRITER, Thread.currentThread().getId()))
        {
            return null;
        }
        CompletableFuture<Object> applied = null;
        try
        {
            final long through = poller.getSequence().get();
            if (ring.getCursor() == through)
            {
                applied = handler.applyNow(type, key, jobId, id, schema, locations, through);
            }
        }
        finally
        {
            writer.lazySet(NO_WRITER);
        }
        // Pairs with a publisher's CAS on the role (one of the two sees the other's write); it also drains the
        // release store of the view, so a read that starts after this call returned sees the change.
        VarHandle.fullFence();
        if (ring.isAvailable(poller.getSequence().get() + 1))
        {
            drain();
        }
        return applied;
    }

    /**
     * After publishing: runs the writer's step if nobody is running it, else spins (then yields) briefly for the
     * answer, taking the step over as soon as the caller running it lets go. Returns with the future complete, or
     * after its patience ran out (the writer running then completes it). A call from inside the writer's step (a
     * continuation) returns at once: the step it runs in picks the command up before it lets go.
     */
    void help(final CompletableFuture<Object> future)
    {
        if (writer.get() == Thread.currentThread().getId())
        {
            return;
        }
        for (int i = 0; !future.isDone() && i < HELP_SPINS + HELP_YIELDS; i++)
        {
            if (!drain())
            {
                if (i < HELP_SPINS)
                {
                    Thread.onSpinWait();
                }
                else
                {
                    Thread.yield();
                }
            }
        }
    }

    /**
     * The writer's step, on this thread, if no other thread is running it: applies every published command, batch
     * by batch, until the ring is empty. After letting go it looks once more, so a command published while it was
     * letting go (whose publisher saw the role taken) is never left behind.
     *
     * @return whether this thread ran the step.
     */
    private boolean drain()
    {
        final long me = Thread.currentThread().getId();
        boolean ran = false;
        while (writer.get() == NO_WRITER && writer.compareAndSet(NO_WRITER, me))
        {
            ran = true;
            try
            {
                poller.poll(handler);
            }
            catch (final Exception ex)
            {
                // The handler answers every command itself; this is a defect, not a command's failure.
                LOG.error("registry writer failed", ex);
            }
            finally
            {
                writer.lazySet(NO_WRITER);
            }
            // Pairs with the publisher's CAS on the role: one of the two sees the other's write.
            VarHandle.fullFence();
            if (!ring.isAvailable(poller.getSequence().get() + 1))
            {
                break;
            }
        }
        return ran;
    }

    /**
     * A command published behind the shutdown command, with a registry thread: while that thread lives it answers
     * the command (taking the role from it could leave it waiting for a command nobody will publish, and close()
     * waiting for it); once it has left, this caller runs the step itself.
     */
    void helpUntilDone(final CompletableFuture<Object> future)
    {
        while (!future.isDone())
        {
            if (registryThread.isAlive() || !drain())
            {
                LockSupport.parkNanos(100_000);
            }
        }
    }

    void drainUntil(final CompletableFuture<Object> shutdown)
    {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(shutdownTimeoutMs);
        while (!shutdown.isDone())
        {
            if (!drain())
            {
                if (System.nanoTime() - deadline > 0)
                {
                    LOG.warn("registry close: the writer did not drain within {} ms", shutdownTimeoutMs);
                    return;
                }
                LockSupport.parkNanos(100_000);
            }
        }
    }

    private void runWriterThread()
    {
        try
        {
            while (!handler.isShutDown())
            {
                try
                {
                    barrier.waitFor(poller.getSequence().get() + 1);
                }
                catch (final TimeoutException ex)
                {
                    continue;
                }
                drain();
            }
        }
        catch (final AlertException | InterruptedException ex)
        {
            // Halted by close() after its timeout: what is left was never forced.
        }
        catch (final RuntimeException | Error ex)
        {
            LOG.error("registry thread failed", ex);
        }
        finally
        {
            if (writer.compareAndSet(NO_WRITER, Thread.currentThread().getId()))
            {
                handler.failLeftovers();
                writer.set(NO_WRITER);
            }
        }
    }

    void stopRegistryThread()
    {
        try
        {
            registryThread.join(shutdownTimeoutMs);
            if (registryThread.isAlive())
            {
                LOG.warn("registry close: the registry thread did not drain within {} ms; halting it",
                    shutdownTimeoutMs);
                barrier.alert();
                registryThread.join(shutdownTimeoutMs);
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }
}
