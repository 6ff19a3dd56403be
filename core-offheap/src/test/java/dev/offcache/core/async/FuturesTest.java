package dev.offcache.core.async;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * What a start throws ends in the future, Errors included; a start that returns is passed through.
 */
class FuturesTest
{
    @Test
    void whatTheStartThrowsFailsTheFutureAndAReturnedFutureIsPassedThrough()
    {
        final AssertionError error = new AssertionError("injected");
        final CompletableFuture<Integer> failed = Futures.call(() ->
        {
            throw error;
        });
        assertSame(error, assertThrows(CompletionException.class, failed::join).getCause());

        final IllegalArgumentException bad = new IllegalArgumentException("bad key");
        final CompletableFuture<Long> refused = Futures.call(() ->
        {
            throw bad;
        });
        assertSame(bad, assertThrows(CompletionException.class, refused::join).getCause());

        final CompletableFuture<Integer> started = CompletableFuture.completedFuture(7);
        assertSame(started, Futures.call(() -> started));
        assertEquals(7, Futures.call(() -> started).join());
    }
}
