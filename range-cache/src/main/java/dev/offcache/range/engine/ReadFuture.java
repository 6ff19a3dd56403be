package dev.offcache.range.engine;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

/**
 * The future of one read. When the caller gives up on it (cancel, a timeout from {@code orTimeout}, or completing
 * it themselves, {@code completeAsync} and the forcing {@code obtrude*} included) the read first stops copying into
 * the caller's buffer, so once the caller sees it done, nothing writes to that buffer any more. The fetches the read
 * started carry on for anyone else waiting on them.
 */
public final class ReadFuture extends CompletableFuture<Void>
{
    private volatile ReadOperation operation;
    private volatile boolean givenUp;

    ReadFuture()
    {
    }

    @Override
    public boolean cancel(final boolean mayInterruptIfRunning)
    {
        giveUp();
        return super.cancel(mayInterruptIfRunning);
    }

    @Override
    public boolean completeExceptionally(final Throwable ex)
    {
        giveUp();
        return super.completeExceptionally(ex);
    }

    @Override
    public boolean complete(final Void value)
    {
        giveUp();
        return super.complete(value);
    }

    /**
     * Forces the result, as {@link CompletableFuture#obtrudeValue} does, after the read stopped writing into the
     * caller's buffer (like any other completion by the caller).
     */
    @Override
    public void obtrudeValue(final Void value)
    {
        giveUp();
        super.obtrudeValue(value);
    }

    /**
     * Forces a failure, as {@link CompletableFuture#obtrudeException} does, after the read stopped writing into the
     * caller's buffer.
     */
    @Override
    public void obtrudeException(final Throwable ex)
    {
        giveUp();
        super.obtrudeException(ex);
    }

    /**
     * Completes with the supplier's value on the executor through {@link #complete} (or, when it throws,
     * {@link #completeExceptionally}), so the read stops writing first: {@code CompletableFuture}'s own
     * {@code completeAsync} completes the future internally, past those overrides.
     */
    @Override
    public CompletableFuture<Void> completeAsync(final Supplier<? extends Void> supplier, final Executor executor)
    {
        if (supplier == null || executor == null)
        {
            throw new NullPointerException();
        }
        executor.execute(() ->
        {
            if (isDone())
            {
                return;
            }
            try
            {
                complete(supplier.get());
            }
            catch (final Throwable ex)
            {
                completeExceptionally(ex);
            }
        });
        return this;
    }

    /**
     * Binds the operation that writes into the caller's buffers.
     *
     * @return false when the caller already gave up (the operation must not start).
     */
    boolean attach(final ReadOperation operation)
    {
        this.operation = operation;
        if (givenUp)
        {
            operation.abandon();
            return false;
        }
        return true;
    }

    void succeed()
    {
        super.complete(null);
    }

    void fail(final Throwable cause)
    {
        giveUp();
        super.completeExceptionally(cause);
    }

    private void giveUp()
    {
        givenUp = true;
        final ReadOperation op = operation;
        if (op != null)
        {
            op.abandon();
        }
    }
}
