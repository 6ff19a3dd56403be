package dev.offcache.server.http;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;

import dev.offcache.range.origin.ForwardingObjectStore;
import dev.offcache.range.origin.ObjectStore;
import dev.offcache.range.store.FetchClass;

/**
 * An origin whose first GET, once it has told the object's size (as an answer's headers do), holds its body until a
 * second GET arrives, or {@link #HOLD_SECONDS} pass: a reader that starts its next GET only after the first body is
 * in waits out the hold and never has two GETs in flight. Counts the GETs in flight at once, so a test asserts the
 * overlap without timing anything. Test only; owns the wrapped origin.
 */
final class SecondGetLatchOrigin extends ForwardingObjectStore
{
    static final long HOLD_SECONDS = 10;

    private final CountDownLatch secondGet = new CountDownLatch(1);
    private final AtomicLong gets = new AtomicLong();
    private final AtomicLong inFlight = new AtomicLong();
    private final AtomicLong peakInFlight = new AtomicLong();

    SecondGetLatchOrigin(final ObjectStore delegate)
    {
        super(delegate);
    }

    @Override
    public CompletableFuture<Integer> read(
        final String key, final long offset, final ByteBuffer destination, final FetchClass fetchClass,
        final LongConsumer objectSize)
    {
        final long n = gets.incrementAndGet();
        peakInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
        if (n > 1)
        {
            secondGet.countDown();
        }
        final LongConsumer holdAfterSize = n > 1 || objectSize == null ? objectSize : (size) ->
        {
            objectSize.accept(size);
            try
            {
                secondGet.await(HOLD_SECONDS, TimeUnit.SECONDS);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
            }
        };
        return delegate().read(key, offset, destination, fetchClass, holdAfterSize)
            .whenComplete((bytes, error) -> inFlight.decrementAndGet());
    }

    @Override
    public boolean readAnswersCarrySize()
    {
        return delegate().readAnswersCarrySize();
    }

    long gets()
    {
        return gets.get();
    }

    long peakInFlight()
    {
        return peakInFlight.get();
    }
}
