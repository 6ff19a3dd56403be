package dev.offcache.registry.front;

import java.util.concurrent.CompletableFuture;

/**
 * A future completed once, at construction, that nobody can change afterwards: the registry hands one instance to
 * every reader of the same entry, so a read served from the {@link ReadView} allocates nothing. {@code complete}
 * and friends do nothing (it is already complete), {@code obtrude*} throw; dependents ({@code thenApply}, ...) are
 * ordinary futures.
 *
 * @param <T> the value type.
 */
final class CompletedFuture<T> extends CompletableFuture<T>
{
    CompletedFuture(final T value)
    {
        super.complete(value);
    }

    @Override
    public boolean complete(final T value)
    {
        return false;
    }

    @Override
    public boolean completeExceptionally(final Throwable ex)
    {
        return false;
    }

    @Override
    public boolean cancel(final boolean mayInterruptIfRunning)
    {
        return false;
    }

    @Override
    public void obtrudeValue(final T value)
    {
        throw new UnsupportedOperationException("a registry read's future is shared and cannot be changed");
    }

    @Override
    public void obtrudeException(final Throwable ex)
    {
        throw new UnsupportedOperationException("a registry read's future is shared and cannot be changed");
    }

    @Override
    public <U> CompletableFuture<U> newIncompleteFuture()
    {
        return new CompletableFuture<>();
    }
}
