package dev.offcache.core.slab;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicReferenceArray;

import dev.offcache.core.region.MappedRegion;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The race {@link BlockRef#tryCopy} must win: readers copy whole slots without a reference while a writer keeps
 * evicting the published blocks and re-using their slots for new ones, so copies overlap evictions and re-writes;
 * then the slab is closed while readers are still copying. Every copy that returns true must hold exactly its block's
 * bytes; every slab must end unmapped. Run in-process by {@link OptimisticCopyStressTest} and, through {@link #main},
 * in a child JVM with Agrona's bounds checks disabled.
 */
final class OptimisticCopyChurn
{
    static final int SLOT = 64 * 1024;
    private static final int SLOTS = 4;
    private static final int POSITIONS = SLOTS - 1;
    private static final int LONGS = SLOT / Long.BYTES;

    private OptimisticCopyChurn()
    {
    }

    /**
     * What a run saw.
     *
     * @param validCopies   copies that returned true, every byte checked.
     * @param conflicts     copies that returned false.
     * @param tornConflicts copies that returned false and whose bytes were indeed not their block's: the wrong
     *                      answers the validation kept from the caller.
     * @param closeRounds   slabs closed while readers copied.
     * @param deferredUnmaps closes that returned with a reader still inside, so the reader unmapped on its way out.
     */
    record Result(long validCopies, long conflicts, long tornConflicts, long closeRounds, long deferredUnmaps)
    {
    }

    private record Published(BlockRef ref, long stamp)
    {
    }

    static long expected(final long stamp, final int index)
    {
        return stamp * 0x9E3779B97F4A7C15L + index;
    }

    /**
     * Runs the churn for {@code nanos}, then {@code closeRounds} short rounds that close a slab under copying readers.
     *
     * @throws AssertionError on a wrong byte in a copy that returned true, a leaked mapping or a slab left mapped.
     */
    static Result run(final long nanos, final int readers, final int closeRounds) throws InterruptedException
    {
        final long mappingsBefore = MappedRegion.liveMappings();
        final AtomicLong valid = new AtomicLong();
        final AtomicLong conflicts = new AtomicLong();
        final AtomicLong torn = new AtomicLong();
        long deferred = 0;

        final BlockSlab churnSlab = BlockSlab.anonymous((long) SLOTS * SLOT, SLOT);
        runRound(churnSlab, readers, nanos, valid, conflicts, torn);
        check(churnSlab.isUnmapped(), "churn slab still mapped after its readers left: " + churnSlab);
        check(churnSlab.optimisticCopies() == valid.get(),
            "slab counted " + churnSlab.optimisticCopies() + " valid copies, readers saw " + valid.get());

        for (int round = 0; round < closeRounds; round++)
        {
            final BlockSlab slab = BlockSlab.anonymous((long) SLOTS * SLOT, SLOT);
            if (runRound(slab, readers, TimeUnit.MILLISECONDS.toNanos(2), valid, conflicts, torn))
            {
                deferred++;
            }
            check(slab.isUnmapped(), "slab still mapped after its readers left: " + slab);
        }
        check(MappedRegion.liveMappings() == mappingsBefore,
            "mappings leaked: " + MappedRegion.liveMappings() + " live, " + mappingsBefore + " before");
        return new Result(valid.get(), conflicts.get(), torn.get(), closeRounds, deferred);
    }

    /**
     * One round: a writer churns and readers copy for {@code nanos}; then, readers still running, every block is
     * released and the slab closed.
     *
     * @return whether close() returned before the memory was unmapped (a reader was inside the copy).
     */
    private static boolean runRound(
        final BlockSlab slab,
        final int readerCount,
        final long nanos,
        final AtomicLong valid,
        final AtomicLong conflicts,
        final AtomicLong torn)
        throws InterruptedException
    {
        final AtomicReferenceArray<Published> board = new AtomicReferenceArray<>(POSITIONS);
        final AtomicBoolean stopWriter = new AtomicBoolean();
        final AtomicBoolean stopReaders = new AtomicBoolean();
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final List<Thread> readers = new ArrayList<>();

        final Thread writer = new Thread(() ->
        {
            long stamp = 0;
            while (!stopWriter.get())
            {
                final BlockRef ref = slab.tryAllocate();
                if (ref == null)
                {
                    // Every slot is published or on its way back: the readers hold none, so this is brief.
                    Thread.onSpinWait();
                    continue;
                }
                stamp++;
                final MutableDirectBuffer buffer = ref.buffer();
                for (int i = 0; i < LONGS; i++)
                {
                    buffer.putLong(i * Long.BYTES, expected(stamp, i));
                }
                ref.length(SLOT);
                final Published old = board.getAndSet((int) (stamp % POSITIONS), new Published(ref, stamp));
                if (old != null)
                {
                    // The eviction: the owner's reference goes and the slot is free for the very next allocation.
                    old.ref.release();
                }
            }
        }, "churn-writer");

        for (int r = 0; r < readerCount; r++)
        {
            readers.add(new Thread(() ->
            {
                final UnsafeBuffer destination = new UnsafeBuffer(new byte[SLOT]);
                final ThreadLocalRandom random = ThreadLocalRandom.current();
                while (!stopReaders.get())
                {
                    final Published published = board.get(random.nextInt(POSITIONS));
                    if (published == null)
                    {
                        continue;
                    }
                    final boolean ok = published.ref.tryCopy(0, destination, 0, SLOT);
                    final int mismatch = firstMismatch(destination, published.stamp);
                    if (ok)
                    {
                        check(mismatch == -1, "copy of block " + published.stamp + " returned true with a wrong long " +
                            "at index " + mismatch);
                        valid.incrementAndGet();
                    }
                    else
                    {
                        conflicts.incrementAndGet();
                        if (mismatch != -1)
                        {
                            torn.incrementAndGet();
                        }
                    }
                }
            }, "churn-reader-" + r));
        }
        final Thread.UncaughtExceptionHandler handler = (thread, ex) -> failure.compareAndSet(null, ex);
        writer.setUncaughtExceptionHandler(handler);
        writer.start();
        for (final Thread reader : readers)
        {
            reader.setUncaughtExceptionHandler(handler);
            reader.start();
        }

        final long deadline = System.nanoTime() + nanos;
        while (System.nanoTime() < deadline && failure.get() == null)
        {
            Thread.sleep(1);
        }
        stopWriter.set(true);
        writer.join(10_000);
        for (int position = 0; position < POSITIONS; position++)
        {
            final Published published = board.getAndSet(position, null);
            if (published != null)
            {
                published.ref.release();
            }
        }
        // Readers may still be inside a copy of a block just released: the memory must stay mapped for them.
        slab.close();
        final boolean deferred = !slab.isUnmapped();
        stopReaders.set(true);
        for (final Thread reader : readers)
        {
            reader.join(10_000);
        }
        if (failure.get() != null)
        {
            throw new AssertionError("a churn thread failed", failure.get());
        }
        check(slab.liveSlots() == 0, "slots leaked: " + slab);
        return deferred;
    }

    private static int firstMismatch(final UnsafeBuffer destination, final long stamp)
    {
        for (int i = 0; i < LONGS; i++)
        {
            if (destination.getLong(i * Long.BYTES) != expected(stamp, i))
            {
                return i;
            }
        }
        return -1;
    }

    private static void check(final boolean condition, final String message)
    {
        if (!condition)
        {
            throw new AssertionError(message);
        }
    }

    /**
     * Child-JVM entry point: runs the churn and prints the result as one line, {@code ok <valid> <conflicts> <torn>
     * <closeRounds> <deferred>}; a failure exits non-zero (a crash, of course, too).
     *
     * @param args run time in milliseconds, reader threads, close rounds.
     * @throws InterruptedException if interrupted.
     */
    public static void main(final String[] args) throws InterruptedException
    {
        final Result result = run(TimeUnit.MILLISECONDS.toNanos(Long.parseLong(args[0])), Integer.parseInt(args[1]),
            Integer.parseInt(args[2]));
        System.out.println("ok " + result.validCopies() + " " + result.conflicts() + " " + result.tornConflicts() +
            " " + result.closeRounds() + " " + result.deferredUnmaps());
    }
}
