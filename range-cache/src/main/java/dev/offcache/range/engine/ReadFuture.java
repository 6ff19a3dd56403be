package dev.offcache.range.engine;

import java.util.concurrent.CompletableFuture;

/**
 * The future of one read. When the caller gives up on it (cancel, a timeout from {@code orTimeout}, or completing
 * it themselves) the read first stops copying into the caller's buffer, so once the caller sees it done, nothing
 * writes to that buffer any more. The fetches the read started carry on for anyone else waiting on them.
 */
public final class ReadFuture extends CompletableFuture<Void>
{
    private final ReadOperation operation;

    ReadFuture(final ReadOperation operation)
    {
        this.operation = operation;
    }

    @Override
    public boolean cancel(final boolean mayInterruptIfRunning)
    {
        operation.abandon();
        return super.cancel(mayInterruptIfRunning);
    }

    @Override
    public boolean completeExceptionally(final Throwable ex)
    {
        operation.abandon();
        return super.completeExceptionally(ex);
    }

    @Override
    public boolean complete(final Void value)
    {
        operation.abandon();
        return super.complete(value);
    }

    void succeed()
    {
        super.complete(null);
    }

    void fail(final Throwable cause)
    {
        operation.abandon();
        super.completeExceptionally(cause);
    }
}
