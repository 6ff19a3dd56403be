package dev.offcache.range.engine;

import java.util.concurrent.CompletableFuture;

/**
 * The future of one read. When the caller gives up on it (cancel, a timeout from {@code orTimeout}, or completing
 * it themselves) the read first stops copying into the caller's buffer, so once the caller sees it done, nothing
 * writes to that buffer any more. The fetches the read started carry on for anyone else waiting on them.
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
