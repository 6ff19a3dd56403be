package dev.offcache.transport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;

import dev.offcache.transport.client.FetchException;
import dev.offcache.transport.media.AeronMedia;
import io.aeron.AeronCounters;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.CountersReader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Shared helpers for the transport tests: deterministic off-heap payloads, byte comparison, driver counter
 * counts (for leak checks), free UDP ports on 127.0.0.1.
 */
public final class TestSupport
{
    private TestSupport()
    {
    }

    /**
     * An off-heap buffer of pseudo-random bytes.
     *
     * @param length bytes.
     * @param seed   for the pseudo-random content.
     * @return a direct (off-heap) buffer full of pseudo-random bytes.
     */
    public static UnsafeBuffer randomDirect(final int length, final long seed)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(length));
        final SplittableRandom random = new SplittableRandom(seed);
        int i = 0;
        for (; i + 8 <= length; i += 8)
        {
            buffer.putLong(i, random.nextLong());
        }
        for (; i < length; i++)
        {
            buffer.putByte(i, (byte) random.nextInt());
        }
        return buffer;
    }

    /**
     * An off-heap buffer filled with one byte.
     *
     * @param length bytes.
     * @param fill   byte every position gets.
     * @return a direct buffer full of {@code fill}.
     */
    public static UnsafeBuffer filledDirect(final int length, final byte fill)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(Math.max(length, 1)), 0, length);
        buffer.setMemory(0, length, fill);
        return buffer;
    }

    /**
     * Fail naming the first differing index unless the ranges are equal.
     *
     * @param expected       source.
     * @param expectedOffset first byte of the source.
     * @param actual         what arrived.
     * @param actualOffset   first byte of what arrived.
     * @param length         bytes to compare.
     */
    public static void assertBytesEqual(
        final DirectBuffer expected,
        final int expectedOffset,
        final DirectBuffer actual,
        final int actualOffset,
        final int length)
    {
        int i = 0;
        for (; i + 8 <= length; i += 8)
        {
            if (expected.getLong(expectedOffset + i) != actual.getLong(actualOffset + i))
            {
                break;
            }
        }
        for (; i < length; i++)
        {
            if (expected.getByte(expectedOffset + i) != actual.getByte(actualOffset + i))
            {
                fail("bytes differ at index " + i + " of " + length + ": expected " +
                    expected.getByte(expectedOffset + i) + " but was " + actual.getByte(actualOffset + i));
            }
        }
    }

    /**
     * Fail unless every byte still has the fill value.
     *
     * @param buffer buffer.
     * @param length bytes to check.
     * @param fill   expected byte.
     */
    public static void assertAllBytes(final DirectBuffer buffer, final int length, final byte fill)
    {
        for (int i = 0; i < length; i++)
        {
            if (buffer.getByte(i) != fill)
            {
                fail("byte " + i + " was written: " + buffer.getByte(i));
            }
        }
    }

    /**
     * Returns a UDP port free on 127.0.0.1 right now.
     *
     * @return a UDP port free on 127.0.0.1 right now.
     */
    public static int freeUdpPort()
    {
        try (DatagramSocket socket = new DatagramSocket(0, InetAddress.getLoopbackAddress()))
        {
            return socket.getLocalPort();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    /**
     * An embedded driver tuned for tests: short linger and liveness so closes show quickly.
     *
     * @return a launched media.
     */
    public static AeronMedia launchTestMedia()
    {
        return AeronMedia.launch(new AeronMedia.Context()
            .publicationLingerTimeoutNs(TimeUnit.MILLISECONDS.toNanos(200))
            .imageLivenessTimeoutNs(TimeUnit.SECONDS.toNanos(2)));
    }

    /**
     * Count counters of one type.
     *
     * @param reader counters of a driver.
     * @param typeId counter type.
     * @return how many allocated counters have that type.
     */
    public static int countersOfType(final CountersReader reader, final int typeId)
    {
        final int[] count = new int[1];
        reader.forEach((counterId, type, keyBuffer, label) ->
        {
            if (type == typeId)
            {
                count[0]++;
            }
        });
        return count[0];
    }

    /**
     * Count the driver counters that exist per publication and per subscription image.
     *
     * @param reader counters of a driver.
     * @return publications plus subscription images the driver holds (publisher limits, subscriber positions).
     */
    public static int publicationAndSubscriptionCounters(final CountersReader reader)
    {
        return countersOfType(reader, AeronCounters.DRIVER_PUBLISHER_LIMIT_TYPE_ID) +
            countersOfType(reader, AeronCounters.DRIVER_SUBSCRIBER_POSITION_TYPE_ID);
    }

    /**
     * Read a counter by label prefix, as AeronStat would.
     *
     * @param reader counters of a driver.
     * @param labelPrefix start of the label.
     * @return the value of the first counter whose label starts with the prefix, or -1.
     */
    public static long counterValue(final CountersReader reader, final String labelPrefix)
    {
        final long[] value = {-1};
        reader.forEach((counterId, type, keyBuffer, label) ->
        {
            if (value[0] == -1 && label.startsWith(labelPrefix))
            {
                value[0] = reader.getCounterValue(counterId);
            }
        });
        return value[0];
    }

    /**
     * Wait until the condition holds or fail.
     *
     * @param what      described in the failure.
     * @param timeout   how long to wait.
     * @param condition polled every millisecond.
     */
    public static void awaitTrue(final String what, final Duration timeout, final BooleanSupplier condition)
    {
        final long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() - deadline > 0)
            {
                fail("timed out after " + timeout + " waiting for " + what);
            }
            try
            {
                Thread.sleep(1);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                fail("interrupted");
            }
        }
    }

    /**
     * Wait for a fetch that must succeed.
     *
     * @param future  a fetch.
     * @param timeout longest wait (a test bound, beyond the fetch's own deadline).
     * @return the fetch's result.
     */
    public static long join(final CompletableFuture<Long> future, final Duration timeout)
    {
        try
        {
            return future.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", ex);
        }
        catch (final ExecutionException ex)
        {
            throw new AssertionError("fetch failed: " + ex.getCause(), ex.getCause());
        }
        catch (final TimeoutException ex)
        {
            throw new AssertionError("fetch did not finish within " + timeout + " (a hang)", ex);
        }
    }

    /**
     * Wait for a fetch that must fail.
     *
     * @param future  a fetch expected to fail.
     * @param timeout longest wait.
     * @return the {@link FetchException} it failed with.
     */
    public static FetchException failure(final CompletableFuture<Long> future, final Duration timeout)
    {
        try
        {
            final long result = future.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            throw new AssertionError("fetch succeeded with " + result + " bytes but should have failed");
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", ex);
        }
        catch (final ExecutionException ex)
        {
            return assertInstanceOf(FetchException.class, ex.getCause());
        }
        catch (final TimeoutException ex)
        {
            throw new AssertionError("fetch neither finished nor failed within " + timeout + " (a hang)", ex);
        }
    }

    /**
     * Assert a failure carries the expected code.
     *
     * @param expected error code.
     * @param ex       failure.
     */
    public static void assertCode(final int expected, final FetchException ex)
    {
        assertEquals(expected, ex.errorCode(), () -> "unexpected failure: " + ex.getMessage());
    }
}
