package dev.offcache.core.config;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Stream;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import dev.offcache.core.journal.Journal;
import dev.offcache.core.region.MappedRegion;
import dev.offcache.core.slab.BlockRef;
import dev.offcache.core.slab.BlockSlab;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ConcludeOnceTest
{
    private static final int SLOT = 4096;

    @TempDir
    static Path dir;

    private long mappingsBefore;

    /**
     * One component of this module: how to make its context, conclude it by hand, open the component over it, and
     * show that the component works.
     */
    record Component<C, T extends AutoCloseable>(
        String context, Supplier<C> newContext, Consumer<C> conclude, Function<C, T> open, Consumer<T> works)
    {
        @Override
        public String toString()
        {
            return context;
        }
    }

    static Stream<Component<?, ?>> components()
    {
        final AtomicInteger journals = new AtomicInteger();
        return Stream.of(
            new Component<>("BlockSlab.Context",
                () -> new BlockSlab.Context().slotSize(SLOT).capacityBytes(2L * SLOT), BlockSlab.Context::conclude,
                BlockSlab::open,
                (slab) ->
                {
                    final BlockRef ref = slab.tryAllocate();
                    ref.buffer().putLong(0, 0xCAFEL);
                    assertEquals(0xCAFEL, ref.buffer().getLong(0));
                    ref.release();
                    assertEquals(2, slab.freeSlots(), "every slot back");
                }),
            new Component<>("Journal.Context",
                () -> new Journal.Context().directory(dir.resolve("journal-" + journals.incrementAndGet()))
                    .segmentSize(SLOT),
                Journal.Context::conclude,
                Journal::open,
                (journal) ->
                {
                    final UnsafeBuffer record = new UnsafeBuffer(new byte[8]);
                    record.putLong(0, 42L);
                    final long position = journal.append(record, 0, 8);
                    final List<Long> read = new ArrayList<>();
                    journal.forEach((buffer, offset, length, at) ->
                    {
                        assertEquals(position, at);
                        read.add(buffer.getLong(offset));
                    });
                    assertEquals(List.of(42L), read);
                    assertEquals(1, journal.segmentCount(), "the refused open made no segment");
                }));
    }

    @BeforeEach
    void recordMappings()
    {
        mappingsBefore = MappedRegion.liveMappings();
    }

    @AfterEach
    void noMappingLeaks()
    {
        assertEquals(mappingsBefore, MappedRegion.liveMappings(), "a mapping leaked");
    }

    @ParameterizedTest
    @MethodSource("components")
    void aContextGivenToASecondComponentIsRefusedAndTheFirstStillWorks(final Component<?, ?> component)
        throws Exception
    {
        refusedForASecondComponent(component);
    }

    @ParameterizedTest
    @MethodSource("components")
    void aContextConcludedByHandIsRefusedByTheComponent(final Component<?, ?> component)
    {
        concludedByHand(component);
    }

    @Test
    void aContextIsSpentEvenWhenItsConcludeRefusesASetting()
    {
        final BlockSlab.Context context = new BlockSlab.Context().slotSize(SLOT);
        assertThrows(IllegalArgumentException.class, context::conclude, "capacityBytes unset");
        context.capacityBytes(SLOT);
        assertThrows(ConcurrentConcludeException.class, () -> BlockSlab.open(context));
    }

    @Test
    void ofConcurrentConcludesExactlyOneGoesThrough() throws Exception
    {
        final int threads = 8;
        for (int round = 0; round < 200; round++)
        {
            final BlockSlab.Context context = new BlockSlab.Context().slotSize(SLOT).capacityBytes(SLOT);
            final CountDownLatch start = new CountDownLatch(1);
            final AtomicInteger concluded = new AtomicInteger();
            final AtomicInteger refused = new AtomicInteger();
            final List<Thread> racers = new ArrayList<>();
            for (int i = 0; i < threads; i++)
            {
                final Thread racer = new Thread(() ->
                {
                    try
                    {
                        start.await();
                        assertSame(context, context.conclude());
                        concluded.incrementAndGet();
                    }
                    catch (final ConcurrentConcludeException ex)
                    {
                        refused.incrementAndGet();
                    }
                    catch (final InterruptedException ex)
                    {
                        Thread.currentThread().interrupt();
                    }
                });
                racer.start();
                racers.add(racer);
            }
            start.countDown();
            for (final Thread racer : racers)
            {
                racer.join();
            }
            assertEquals(1, concluded.get(), "round " + round);
            assertEquals(threads - 1, refused.get(), "round " + round);
        }
    }

    private static <C, T extends AutoCloseable> void refusedForASecondComponent(final Component<C, T> component)
        throws Exception
    {
        final C context = component.newContext().get();
        final T first = component.open().apply(context);
        try
        {
            final ConcurrentConcludeException refused =
                assertThrows(ConcurrentConcludeException.class, () -> component.open().apply(context));
            assertTrue(refused.getMessage().startsWith(component.context() + " is already concluded"),
                refused.getMessage());
            component.works().accept(first);
        }
        finally
        {
            first.close();
        }
    }

    private static <C, T extends AutoCloseable> void concludedByHand(final Component<C, T> component)
    {
        final C context = component.newContext().get();
        component.conclude().accept(context);
        assertThrows(ConcurrentConcludeException.class, () -> component.open().apply(context));
    }
}
