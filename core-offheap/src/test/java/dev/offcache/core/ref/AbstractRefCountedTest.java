package dev.offcache.core.ref;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class AbstractRefCountedTest
{
    private static final class Counted extends AbstractRefCounted
    {
        final AtomicInteger freed = new AtomicInteger();

        @Override
        protected void onLastRelease()
        {
            freed.incrementAndGet();
        }
    }

    @Test
    void theLastReleaseFreesOnceAndNothingComesBack()
    {
        final Counted counted = new Counted();
        assertEquals(1, counted.refCount(), "the creator's reference");
        assertTrue(counted.tryRetain());
        assertTrue(counted.tryRetain());
        assertEquals(3, counted.refCount());
        counted.release();
        counted.release();
        assertEquals(0, counted.freed.get(), "not freed while a reference is held");
        assertFalse(counted.isReleased());
        counted.release();
        assertEquals(1, counted.freed.get());
        assertTrue(counted.isReleased());
        assertEquals(0, counted.refCount());
        assertFalse(counted.tryRetain(), "no retain after the last release");
        assertThrows(IllegalStateException.class, counted::release, "a double release");
        assertEquals(1, counted.freed.get(), "a double release frees nothing twice");
        assertEquals(0, counted.refCount());
    }

    @Test
    void readersRacingTheOwnersReleaseFreeExactlyOnceAndNeverAfterAFailedRetain() throws Exception
    {
        final int readers = 3;
        for (int round = 0; round < 2_000; round++)
        {
            final Counted counted = new Counted();
            final AtomicInteger retainedAfterFree = new AtomicInteger();
            final CountDownLatch start = new CountDownLatch(1);
            final CountDownLatch done = new CountDownLatch(readers);
            for (int r = 0; r < readers; r++)
            {
                final Thread reader = new Thread(() ->
                {
                    try
                    {
                        start.await();
                        for (int i = 0; i < 50; i++)
                        {
                            if (counted.tryRetain())
                            {
                                if (counted.freed.get() != 0)
                                {
                                    retainedAfterFree.incrementAndGet();
                                }
                                counted.release();
                            }
                        }
                    }
                    catch (final InterruptedException ex)
                    {
                        Thread.currentThread().interrupt();
                    }
                    finally
                    {
                        done.countDown();
                    }
                });
                reader.start();
            }
            start.countDown();
            counted.release();
            assertTrue(done.await(30, TimeUnit.SECONDS), "readers finished");
            assertEquals(1, counted.freed.get(), "freed exactly once in round " + round);
            assertEquals(0, retainedAfterFree.get(), "a reference taken after the free in round " + round);
            assertFalse(counted.tryRetain());
        }
    }
}
