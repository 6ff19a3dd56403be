package dev.offcache.core.async;

import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * Starting asynchronous work whose start may itself throw: whatever the call throws (an {@link Error}, a sneaky
 * checked exception, a bad argument) ends in the returned future, so the code that handles the future's failure
 * (a fallback, a waiting read) handles it too and nothing waits for ever.
 */
public final class Futures
{
    private Futures()
    {
    }

    /**
     * Calls {@code start}.
     *
     * @param start starts the work and returns its future.
     * @param <T>   the result type.
     * @return the work's future, or a future failed with what {@code start} threw.
     */
    public static <T> CompletableFuture<T> call(final Supplier<CompletableFuture<T>> start)
    {
        try
        {
            return start.get();
        }
        catch (final Throwable ex)
        {
            return CompletableFuture.failedFuture(ex);
        }
    }
}
