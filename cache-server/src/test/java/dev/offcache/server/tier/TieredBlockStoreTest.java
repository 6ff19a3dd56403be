package dev.offcache.server.tier;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import dev.offcache.core.checksum.Crc32c;
import dev.offcache.core.region.MappedRegion;
import dev.offcache.core.slab.BlockRef;
import dev.offcache.range.store.BlockKeys;
import dev.offcache.range.store.DamagedBlockException;
import dev.offcache.range.store.FetchClass;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TieredBlockStoreTest
{
    private static final int BLOCK = 64 * 1024;

    @TempDir
    Path dir;

    private TieredBlockStore open(final ObjectNames names, final int ramBlocks, final int ssdBlocks)
    {
        return TieredBlockStore.open(new TieredBlockStore.Context()
            .blockSize(BLOCK)
            .ramCapacityBytes((long) ramBlocks * BLOCK)
            .ssdCapacityBytes((long) ssdBlocks * (BLOCK + BlockFileFormat.HEADER_LENGTH))
            .ssdDir(dir.resolve("ssd"))
            .names(names));
    }

    /** Block content derived from (key, index), so any mix-up is visible. */
    static byte[] content(final String key, final long blockIndex, final int length)
    {
        final byte[] bytes = new byte[length];
        long seed = key.hashCode() * 31L + blockIndex;
        for (int i = 0; i < length; i++)
        {
            seed = seed * 6364136223846793005L + 1442695040888963407L;
            bytes[i] = (byte) (seed >>> 56);
        }
        return bytes;
    }

    private static boolean put(
        final TieredBlockStore store, final TestNames names, final String key, final long index, final int length,
        final FetchClass fetchClass)
    {
        final byte[] bytes = content(key, index, length);
        return store.put(names.blockKey(key, index), new UnsafeBuffer(bytes), 0, length, fetchClass);
    }

    private static byte[] read(final TieredBlockStore store, final TestNames names, final String key, final long index)
    {
        return read(store, names.blockKey(key, index));
    }

    private static void awaitOnSsd(final TieredBlockStore store, final long blockKey) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!store.onSsd(blockKey))
        {
            assertTrue(System.nanoTime() < deadline, "block never reached SSD");
            Thread.sleep(5);
        }
    }

    /**
     * Names whose next resolution of {@code objectId} runs an overwrite right after it answered: the engine forgets
     * the id, the key gets a new one, and the name's SSD blocks are dropped, as {@code EngineBackend} does. That is
     * the window in which a warming fetch or a spill of the old version had resolved its name but not yet written.
     */
    private static final class OverwrittenWhileWriting implements ObjectNames
    {
        private final Map<Long, ObjectName> ids = new java.util.concurrent.ConcurrentHashMap<>();
        private final java.util.concurrent.atomic.AtomicReference<Runnable> overwrite =
            new java.util.concurrent.atomic.AtomicReference<>();
        private volatile long overwrittenId = -1;

        @Override
        public ObjectName nameOf(final long objectId)
        {
            final ObjectName name = ids.get(objectId);
            if (objectId == overwrittenId)
            {
                final Runnable pending = overwrite.getAndSet(null);
                if (null != pending)
                {
                    pending.run();
                }
            }
            return name;
        }

        void overwriteOnNextResolution(final long oldId, final long newId, final TieredBlockStore store)
        {
            final ObjectName name = ids.get(oldId);
            overwrittenId = oldId;
            overwrite.set(() ->
            {
                ids.remove(oldId);
                ids.put(newId, name);
                store.ssd().removeObject(name);
            });
        }
    }

    /**
     * A store whose SSD directory cannot be made (a file is in its place) fails to open and frees what it had made
     * by then: its private counters region (a mapping, counted by {@link MappedRegion#liveMappings()}), every time.
     */
    @Test
    void aStoreThatCannotOpenItsSsdTierFreesItsPrivateCounters() throws IOException
    {
        final Path notADirectory = Files.writeString(dir.resolve("not-a-directory"), "x");
        final long mappings = MappedRegion.liveMappings();
        for (int i = 0; i < 3; i++)
        {
            final TieredBlockStore.Context context = new TieredBlockStore.Context()
                .blockSize(BLOCK)
                .ramCapacityBytes(4L * BLOCK)
                .ssdDir(notADirectory.resolve("ssd"))
                .names(new TestNames(BLOCK));
            assertThrows(RuntimeException.class, () -> TieredBlockStore.open(context));
        }
        assertEquals(mappings, MappedRegion.liveMappings(), "mappings left by three failed opens");
    }

    @Test
    void aWarmedBlockOfAVersionOverwrittenWhileItIsWrittenIsNeverServedNorRecovered() throws Exception
    {
        final ObjectName name = new ObjectName("ns", "t/over.bin");
        final OverwrittenWhileWriting names = new OverwrittenWhileWriting();
        names.ids.put(1L, name);
        try (TieredBlockStore store = open(names, 1, 16))
        {
            // a warming fetch of the old version (written straight to SSD) resolves its name, then the overwrite
            names.overwriteOnNextResolution(1, 2, store);
            store.put(BlockKeys.pack(1, 0), new UnsafeBuffer(content("old", 0, BLOCK)), 0, BLOCK,
                FetchClass.PREFETCH);
            assertNull(read(store, BlockKeys.pack(2, 0)), "the old version's warmed block under the new version");
            assertFalse(store.onSsd(BlockKeys.pack(2, 0)));
            // the new version's own warming is stored and served
            final byte[] new0 = content("new", 0, BLOCK);
            assertTrue(store.put(BlockKeys.pack(2, 0), new UnsafeBuffer(new0), 0, BLOCK, FetchClass.PREFETCH));
            assertArrayEquals(new0, read(store, BlockKeys.pack(2, 0)));
        }
        assertOnlyNewBlocksRecovered(1);
    }

    @Test
    void aSpilledBlockOfAVersionOverwrittenWhileItIsWrittenIsNeverServedNorRecovered() throws Exception
    {
        final ObjectName name = new ObjectName("ns", "t/over.bin");
        final OverwrittenWhileWriting names = new OverwrittenWhileWriting();
        names.ids.put(1L, name);
        try (TieredBlockStore store = open(names, 1, 16))
        {
            // a RAM block of the old version is spilled to SSD (name resolved when queued), then the overwrite
            assertTrue(store.put(BlockKeys.pack(1, 1), new UnsafeBuffer(content("old", 1, BLOCK)), 0, BLOCK,
                FetchClass.DEMAND));
            names.overwriteOnNextResolution(1, 2, store);
            assertTrue(store.put(BlockKeys.pack(2, 5), new UnsafeBuffer(content("new", 5, BLOCK)), 0, BLOCK,
                FetchClass.DEMAND), "evicts the old block from the one-slot RAM tier: a spill");
            assertTrue(store.awaitSpillsWritten(10_000));
            assertNull(read(store, BlockKeys.pack(2, 1)), "the spilled block of the overwritten version");
            assertFalse(store.onSsd(BlockKeys.pack(2, 1)));
            assertTrue(store.put(BlockKeys.pack(2, 0), new UnsafeBuffer(content("new", 0, BLOCK)), 0, BLOCK,
                FetchClass.PREFETCH));
        }
        assertOnlyNewBlocksRecovered(2);
    }

    /** After a restart, only the new version's blocks are under the name (those in RAM were written at close). */
    private void assertOnlyNewBlocksRecovered(final int blocks)
    {
        final TestNames restarted = new TestNames(10);
        try (TieredBlockStore store = open(restarted, 4, 16))
        {
            assertEquals(blocks, store.ssd().blockCount(), "only the new version's blocks are on SSD");
            assertNull(read(store, restarted, "t/over.bin", 1));
            assertArrayEquals(content("new", 0, BLOCK), read(store, restarted, "t/over.bin", 0));
        }
    }

    private static byte[] read(final TieredBlockStore store, final long blockKey)
    {
        final BlockRef ref = store.acquire(blockKey);
        if (null == ref)
        {
            return null;
        }
        try
        {
            final byte[] bytes = new byte[ref.length()];
            ref.buffer().getBytes(0, bytes);
            return bytes;
        }
        finally
        {
            ref.release();
        }
    }

    @Test
    void itsThreadsRunWhileOpenAndHaveStoppedOnceClosed()
    {
        final TestNames names = new TestNames(1);
        final TieredBlockStore store = open(names, 4, 16);
        assertTrue(put(store, names, "a", 0, BLOCK, FetchClass.DEMAND));
        assertFalse(store.threadsStopped(), "the spill writer runs while the store is open");
        store.close();
        assertTrue(store.threadsStopped(), "close joined the spill writer and the SSD readers");
    }

    @Test
    void aPutWhoseCopyFailsGivesItsSlotBack()
    {
        final TestNames names = new TestNames(1);
        final TieredBlockStore store = open(names, 4, 16);
        // a source shorter than the length asked for: the copy into the slot throws
        assertThrows(IndexOutOfBoundsException.class, () -> store.put(names.blockKey("a", 0),
            new UnsafeBuffer(new byte[10]), 0, 1000, FetchClass.DEMAND));
        assertFalse(store.inRam(names.blockKey("a", 0)));
        store.close();
        assertEquals(0, store.liveSlots(), "the slot of the failed put went back");
    }

    @Test
    void demandFillGoesToRamAndIsServedFromRam()
    {
        final TestNames names = new TestNames(1);
        try (TieredBlockStore store = open(names, 4, 16))
        {
            assertTrue(put(store, names, "a", 0, BLOCK, FetchClass.DEMAND));
            assertTrue(store.inRam(names.blockKey("a", 0)));
            assertFalse(store.onSsd(names.blockKey("a", 0)));
            assertArrayEquals(content("a", 0, BLOCK), read(store, names, "a", 0));
            assertEquals(0, store.metrics().ssdVerifiedReads(), "served from RAM, the SSD tier was not read");
            assertNull(read(store, names, "a", 1));
        }
    }

    @Test
    void aReservationTakesOnlyFreeSlotsAndEvictsNothingUntilItsBlockIsCommitted()
    {
        final TestNames names = new TestNames(1);
        try (TieredBlockStore store = TieredBlockStore.open(new TieredBlockStore.Context()
            .blockSize(BLOCK)
            .ramCapacityBytes(4L * BLOCK)
            .spillQueueCapacity(2)
            .ssdCapacityBytes(16L * (BLOCK + BlockFileFormat.HEADER_LENGTH))
            .ssdDir(dir.resolve("ssd"))
            .names(names)))
        {
            for (int i = 0; i < 4; i++)
            {
                assertTrue(put(store, names, "a", i, BLOCK, FetchClass.DEMAND));
            }
            // a run of 3 blocks past an unknown end: the 2 spare slots are free, the third is not, and no resident
            // block is pushed out for it
            final BlockRef first = store.reserve(names.blockKey("b", 0), FetchClass.DEMAND);
            final BlockRef second = store.reserve(names.blockKey("b", 1), FetchClass.DEMAND);
            assertNotNull(first);
            assertNotNull(second);
            assertNull(store.reserve(names.blockKey("b", 2), FetchClass.DEMAND), "no free slot: stage instead");
            assertNull(store.reserve(names.blockKey("a", 0), FetchClass.DEMAND), "a resident block needs no slot");
            assertNull(store.reserve(names.blockKey("b", 3), FetchClass.PREFETCH), "prefetched blocks go to SSD");
            second.release();
            assertEquals(4, store.ramBlocks());
            assertEquals(0, store.metrics().ramEvictions(), "the reservations evicted nothing");
            for (int i = 0; i < 4; i++)
            {
                assertTrue(store.inRam(names.blockKey("a", i)));
            }
            // the landed block is committed: it evicts the least recently used one down to the capacity
            final byte[] bytes = content("b", 0, 1000);
            first.buffer().putBytes(0, bytes);
            first.length(bytes.length);
            assertTrue(store.commit(names.blockKey("b", 0), first, FetchClass.DEMAND));
            assertEquals(4, store.ramBlocks());
            assertEquals(1, store.metrics().ramEvictions());
            assertFalse(store.inRam(names.blockKey("a", 0)));
            assertArrayEquals(bytes, read(store, names, "b", 0));
        }
    }

    /**
     * Reservations leave one free slot per pending spill: with the spill writer held on its first write and two
     * evictions pending, the two free spare slots are not reserved, so the next put takes one and evicts exactly one
     * block (before, two landings took them and the put had to evict until spills were dropped). Once the spills are
     * written, reservations take free slots again.
     */
    @Test
    void reservationsLeaveOneFreeSlotPerPendingSpillForPuts() throws Exception
    {
        final TestNames names = new TestNames(1);
        final CountDownLatch writerHeld = new CountDownLatch(1);
        final CountDownLatch releaseWriter = new CountDownLatch(1);
        final ObjectNames gated = (objectId) ->
        {
            if (Thread.currentThread().getName().equals("offcache-ssd-spill"))
            {
                writerHeld.countDown();
                try
                {
                    releaseWriter.await();
                }
                catch (final InterruptedException ex)
                {
                    Thread.currentThread().interrupt();
                }
            }
            return names.nameOf(objectId);
        };
        final TieredBlockStore store = TieredBlockStore.open(new TieredBlockStore.Context()
            .blockSize(BLOCK)
            .ramCapacityBytes(4L * BLOCK)
            .spillQueueCapacity(4)
            .ssdCapacityBytes(16L * (BLOCK + BlockFileFormat.HEADER_LENGTH))
            .ssdDir(dir.resolve("ssd"))
            .names(gated));
        try
        {
            for (int i = 0; i < 6; i++)
            {
                assertTrue(put(store, names, "a", i, BLOCK, FetchClass.DEMAND));
            }
            assertTrue(writerHeld.await(10, TimeUnit.SECONDS), "the spill writer reached its first write");
            // 4 resident, 2 evicted blocks waiting for the writer: 2 of the 4 spare slots are free
            assertEquals(6, store.liveSlots());
            assertEquals(2, store.reservationFloor());
            assertNull(store.reserve(names.blockKey("b", 0), FetchClass.DEMAND), "a free slot a put needs");
            assertTrue(put(store, names, "c", 0, BLOCK, FetchClass.DEMAND));
            assertEquals(3, store.metrics().ramEvictions(), "the put evicted one block");
            assertEquals(0, store.metrics().spillsDropped.get(), "no eviction dropped");
            releaseWriter.countDown();
            assertTrue(store.awaitSpillsWritten(10_000));
            final BlockRef landing = store.reserve(names.blockKey("b", 0), FetchClass.DEMAND);
            assertNotNull(landing, "no spill pending: a free slot is reserved");
            landing.release();
        }
        finally
        {
            // first: a held writer would keep close() waiting on the SSD tier's monitor
            releaseWriter.countDown();
            store.close();
        }
    }

    @Test
    void ramEvictionSpillsToSsdAndSsdHitIsPromotedWithTheSameBytes() throws Exception
    {
        final TestNames names = new TestNames(1);
        try (TieredBlockStore store = open(names, 2, 16))
        {
            for (int i = 0; i < 5; i++)
            {
                put(store, names, "obj", i, i == 4 ? 1000 : BLOCK, FetchClass.DEMAND);
            }
            assertFalse(store.inRam(names.blockKey("obj", 0)));
            awaitOnSsd(store, names.blockKey("obj", 0));
            assertTrue(store.metrics().ramEvictions() >= 3);

            assertArrayEquals(content("obj", 0, BLOCK), read(store, names, "obj", 0));
            assertEquals(1, store.metrics().ssdVerifiedReads(), "read back from SSD and checked");
            assertTrue(store.inRam(names.blockKey("obj", 0)), "SSD hit of the right length is promoted");
            assertArrayEquals(content("obj", 4, 1000), read(store, names, "obj", 4));
        }
    }

    @Test
    void prefetchLandsOnSsdNotRamThenDemandReadHitsSsd()
    {
        final TestNames names = new TestNames(1);
        try (TieredBlockStore store = open(names, 4, 16))
        {
            assertTrue(put(store, names, "warm", 3, BLOCK, FetchClass.PREFETCH));
            final long key = names.blockKey("warm", 3);
            assertTrue(store.onSsd(key));
            assertFalse(store.inRam(key));
            assertEquals(0, store.liveSlots(), "prefetch takes no RAM slot");

            assertArrayEquals(content("warm", 3, BLOCK), read(store, names, "warm", 3));
            assertEquals(1, store.metrics().ssdVerifiedReads());
        }
    }

    @Test
    void restartServesWarmBlocksUnderNewProcessLocalIds() throws Exception
    {
        final TestNames first = new TestNames(1);
        try (TieredBlockStore store = open(first, 4, 16))
        {
            put(store, first, "x/part-0.parquet", 0, BLOCK, FetchClass.DEMAND);
            put(store, first, "x/part-0.parquet", 1, 777, FetchClass.DEMAND);
            put(store, first, "y", 0, BLOCK, FetchClass.PREFETCH);
        }
        final TestNames second = new TestNames(1000);
        try (TieredBlockStore store = open(second, 4, 16))
        {
            assertEquals(3, store.ssd().blockCount());
            assertArrayEquals(content("x/part-0.parquet", 0, BLOCK), read(store, second, "x/part-0.parquet", 0));
            assertArrayEquals(content("x/part-0.parquet", 1, 777), read(store, second, "x/part-0.parquet", 1));
            assertArrayEquals(content("y", 0, BLOCK), read(store, second, "y", 0));
            assertEquals(3, store.metrics().ssdVerifiedReads());
        }
    }

    @Test
    void everySlotKeepsTheCrcOfItsBytesFromItsFillAndFromItsPromotion() throws Exception
    {
        final TestNames names = new TestNames(1);
        final ThreadLocalRandom random = ThreadLocalRandom.current();
        try (TieredBlockStore store = open(names, 4, 64))
        {
            for (int round = 0; round < 200; round++)
            {
                final long index = random.nextInt(24);
                final int length = 1 + random.nextInt(BLOCK);
                final long key = names.blockKey("r", index);
                if (!store.holds(key))
                {
                    final byte[] bytes = new byte[length];
                    random.nextBytes(bytes);
                    assertTrue(store.put(key, new UnsafeBuffer(bytes), 0, length, FetchClass.DEMAND));
                }
                assertTrue(store.awaitSpillsWritten(10_000), "evicted blocks land on SSD, to be promoted back");
                final BlockRef ref = store.acquire(key);
                if (null == ref)
                {
                    continue; // evicted and still on its way to SSD
                }
                try
                {
                    assertEquals(Crc32c.compute(ref.buffer(), 0, ref.length()) & 0xFFFF_FFFFL, ref.crc32c(),
                        "the recorded CRC is the CRC of the slot's bytes (block " + index + ")");
                }
                finally
                {
                    ref.release();
                }
            }
            assertTrue(store.metrics().ssdVerifiedReads() > 0, "some slots came back from SSD");
        }
    }

    @Test
    void aSlotDamagedInRamAfterItsFillIsNotSpilled() throws Exception
    {
        final TestNames names = new TestNames(1);
        try (TieredBlockStore store = open(names, 2, 16))
        {
            put(store, names, "d", 0, BLOCK, FetchClass.DEMAND);
            final long key = names.blockKey("d", 0);
            final BlockRef ref = store.acquire(key);
            ref.buffer().putByte(4321, (byte) (ref.buffer().getByte(4321) ^ 0x5A));
            ref.release();
            for (int i = 1; i < 4; i++)
            {
                put(store, names, "d", i, BLOCK, FetchClass.DEMAND);
            }
            // RAM holds blocks 2 and 3: 0 and 1 were evicted and queued for the spill writer, in that order
            awaitOnSsd(store, names.blockKey("d", 1));
            assertTrue(store.awaitSpillsWritten(10_000));
            // the spill's chunk CRCs combine to the fill's CRC or the block is not written: a chunk CRC never vouches
            // for bytes damaged since the fill (before, the file got the fill's CRC and its first read dropped it)
            assertFalse(store.onSsd(key), "the damaged slot was not spilled");
            assertEquals(1, store.metrics().ramCorruptBlocks());
            assertNull(read(store, names, "d", 0), "the damage is not served");
            assertEquals(0, store.metrics().ssdCorruptBlocks());
        }
    }

    @Test
    void corruptedBlockFileIsDetectedNotServedAndRefetched() throws Exception
    {
        final TestNames names = new TestNames(1);
        try (TieredBlockStore store = open(names, 4, 16))
        {
            put(store, names, "c", 0, BLOCK, FetchClass.PREFETCH);
            final Path file = store.ssd().pathOf(new ObjectName("ns", "c"), 0);
            flipByte(file, BlockFileFormat.HEADER_LENGTH + 1234);

            assertNull(read(store, names, "c", 0), "a corrupt block is never served");
            assertEquals(1, store.metrics().ssdCorruptBlocks());
            assertFalse(Files.exists(file));
            assertFalse(store.onSsd(names.blockKey("c", 0)));

            assertTrue(put(store, names, "c", 0, BLOCK, FetchClass.DEMAND), "the refetch is stored again");
            assertArrayEquals(content("c", 0, BLOCK), read(store, names, "c", 0));
        }
    }

    @Test
    void tornWritesAndDamagedFilesAreDiscardedAtStart() throws Exception
    {
        final TestNames names = new TestNames(1);
        final Path good;
        final Path truncated;
        try (TieredBlockStore store = open(names, 4, 16))
        {
            put(store, names, "g", 0, BLOCK, FetchClass.PREFETCH);
            put(store, names, "t", 0, BLOCK, FetchClass.PREFETCH);
            good = store.ssd().pathOf(new ObjectName("ns", "g"), 0);
            truncated = store.ssd().pathOf(new ObjectName("ns", "t"), 0);
        }
        // a kill -9 between write and rename leaves a temp file; a torn copy leaves a short file
        Files.write(good.resolveSibling("99.tmp"), new byte[100]);
        try (FileChannel channel = FileChannel.open(truncated, StandardOpenOption.WRITE))
        {
            channel.truncate(BlockFileFormat.HEADER_LENGTH + 10);
        }
        final TestNames second = new TestNames(50);
        try (TieredBlockStore store = open(second, 4, 16))
        {
            assertEquals(1, store.metrics().ssdTornWritesDiscarded());
            assertEquals(1, store.metrics().ssdCorruptBlocks());
            assertEquals(1, store.ssd().blockCount());
            assertArrayEquals(content("g", 0, BLOCK), read(store, second, "g", 0));
            assertNull(read(store, second, "t", 0));
            assertFalse(Files.exists(good.resolveSibling("99.tmp")));
        }
    }

    @Test
    void unknownFormatVersionIsWipedAndCounted() throws Exception
    {
        final TestNames names = new TestNames(1);
        final Path file;
        try (TieredBlockStore store = open(names, 4, 16))
        {
            put(store, names, "v", 0, BLOCK, FetchClass.PREFETCH);
            put(store, names, "w", 0, BLOCK, FetchClass.PREFETCH);
            file = store.ssd().pathOf(new ObjectName("ns", "v"), 0);
        }
        // one file claims a future block format: it is wiped, the other survives
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE))
        {
            final ByteBuffer version = ByteBuffer.allocate(2).order(ByteOrder.LITTLE_ENDIAN)
                .putShort(0, (short) (BlockFileFormat.VERSION + 1));
            channel.write(version, 4);
        }
        try (TieredBlockStore store = open(new TestNames(1), 4, 16))
        {
            assertEquals(1, store.metrics().ssdFormatWipes());
            assertEquals(1, store.ssd().blockCount());
        }
        // a whole tier of another layout version is wiped
        Files.writeString(dir.resolve("ssd").resolve("FORMAT"), "offcache-ssd-tier 99\n", StandardCharsets.UTF_8);
        try (TieredBlockStore store = open(new TestNames(1), 4, 16))
        {
            assertEquals(1, store.metrics().ssdFormatWipes());
            assertEquals(0, store.ssd().blockCount());
        }
        assertEquals(SsdTier.FORMAT_LINE,
            Files.readString(dir.resolve("ssd").resolve("FORMAT"), StandardCharsets.UTF_8).trim());
    }

    @Test
    void aPartOfAnOpenBlockFileIsReadOnTheTiersReaderThreads() throws Exception
    {
        final UnsafeBuffer bytes = new UnsafeBuffer(new byte[BLOCK]);
        for (int i = 0; i < BLOCK; i++)
        {
            bytes.putByte(i, (byte) (i * 7));
        }
        final UnsafeBuffer staging = new UnsafeBuffer(ByteBuffer.allocateDirect(BLOCK));
        final ExecutorService pool = Executors.newSingleThreadExecutor((task) -> new Thread(task, "test-ssd-reader"));
        final AtomicLong handedOff = new AtomicLong();
        final List<String> readers = new java.util.concurrent.CopyOnWriteArrayList<>();
        try (TierCounters metrics = new TierCounters();
            SsdTier ssd = SsdTier.open(dir.resolve("parts"), 16L * BLOCK, metrics))
        {
            ssd.readFilesOn((task) ->
            {
                handedOff.incrementAndGet();
                pool.execute(() ->
                {
                    readers.add(Thread.currentThread().getName());
                    task.run();
                });
            });
            assertTrue(ssd.write(new ObjectName("ns", "p"), 0, bytes, 0, BLOCK));
            assertEquals(BLOCK, ssd.read(new ObjectName("ns", "p"), 0, staging));
            final SsdFile open = ssd.openVerified(new ObjectName("ns", "p"), 0, BLOCK);
            assertNotNull(open);
            try
            {
                final ByteBuffer part = ByteBuffer.allocateDirect(1000);
                open.readAsync(300, part).get(10, TimeUnit.SECONDS);
                assertEquals(0, part.position(), "the destination's position is left as it was");
                for (int i = 0; i < 1000; i++)
                {
                    assertEquals((byte) ((300 + i) * 7), part.get(i), "byte " + i);
                }
                assertEquals(1, handedOff.get(), "the read was handed to the tier's readers");
                assertEquals(List.of("test-ssd-reader"), readers);
                final ByteBuffer past = ByteBuffer.allocateDirect(100);
                final java.util.concurrent.ExecutionException ended = org.junit.jupiter.api.Assertions.assertThrows(
                    java.util.concurrent.ExecutionException.class,
                    () -> open.readAsync(BLOCK - 50, past).get(10, TimeUnit.SECONDS));
                assertTrue(ended.getCause() instanceof IOException, "a read past the block fails: " + ended);
            }
            finally
            {
                open.release();
            }
        }
        finally
        {
            pool.shutdownNow();
        }
    }

    @Test
    void aPartIsCheckedAgainstItsChunksAndAVersion2FileIsKeptAndCheckedWhole() throws Exception
    {
        final int length = 4 * BlockFileFormat.CHUNK_SIZE - 5000;
        final UnsafeBuffer bytes = new UnsafeBuffer(new byte[length]);
        for (int i = 0; i < length; i++)
        {
            bytes.putByte(i, (byte) (i * 13));
        }
        final ObjectName current = new ObjectName("ns", "current");
        final ObjectName old = new ObjectName("ns", "old");
        final Path oldFile;
        try (TierCounters metrics = new TierCounters();
            SsdTier ssd = SsdTier.open(dir.resolve("v"), 16L * length, metrics))
        {
            assertTrue(ssd.write(current, 0, bytes, 0, length));
            assertTrue(ssd.write(old, 0, bytes, 0, length));
            oldFile = ssd.pathOf(old, 0);
        }
        // the second file as the previous version wrote it: no chunk CRCs, the short at 6 reserved, the old layout line
        rewriteAsVersion2(oldFile);
        Files.writeString(dir.resolve("v").resolve("FORMAT"), "offcache-ssd-tier 2\n", StandardCharsets.UTF_8);
        try (TierCounters metrics = new TierCounters();
            SsdTier ssd = SsdTier.open(dir.resolve("v"), 16L * length, metrics))
        {
            assertEquals(0, metrics.ssdFormatWipes(), "a version 2 tier is kept");
            assertEquals(2, ssd.blockCount());
            assertEquals(SsdTier.FORMAT_LINE,
                Files.readString(dir.resolve("v").resolve("FORMAT"), StandardCharsets.UTF_8).trim());
            final UnsafeBuffer staging = new UnsafeBuffer(ByteBuffer.allocateDirect(length));
            assertEquals(length, ssd.read(current, 0, staging));
            assertEquals(length, ssd.read(old, 0, staging), "a version 2 file is read and checked");
            final SsdFile currentFile = ssd.openVerified(current, 0, length);
            final SsdFile legacy = ssd.openVerified(old, 0, length);
            try
            {
                // a part across two chunks, from each file: the file's bytes
                for (final SsdFile file : List.of(currentFile, legacy))
                {
                    final ByteBuffer part = ByteBuffer.allocateDirect(3000);
                    file.readAsync(BlockFileFormat.CHUNK_SIZE - 1000, part).get(10, TimeUnit.SECONDS);
                    for (int i = 0; i < 3000; i++)
                    {
                        assertEquals((byte) ((BlockFileFormat.CHUNK_SIZE - 1000 + i) * 13), part.get(i));
                    }
                }
                // a byte of the last chunk damaged in both: a part of the first chunk of the current file reads on
                // (its chunk is intact), the version 2 file is one chunk and fails
                flipByte(ssd.pathOf(current, 0), BlockFileFormat.HEADER_LENGTH + length - 10);
                flipByte(oldFile, BlockFileFormat.HEADER_LENGTH + length - 10);
                currentFile.readAsync(100, ByteBuffer.allocateDirect(1000)).get(10, TimeUnit.SECONDS);
                final java.util.concurrent.ExecutionException failed = assertThrows(
                    java.util.concurrent.ExecutionException.class,
                    () -> legacy.readAsync(100, ByteBuffer.allocateDirect(1000)).get(10, TimeUnit.SECONDS));
                assertTrue(failed.getCause() instanceof DamagedBlockException, failed.toString());
                assertNull(ssd.pathOf(old, 0), "dropped");
                assertFalse(Files.exists(oldFile));
                // the current file's damaged chunk fails too, and drops it
                final java.util.concurrent.ExecutionException chunk = assertThrows(
                    java.util.concurrent.ExecutionException.class,
                    () -> currentFile.readAsync(length - 20, ByteBuffer.allocateDirect(5)).get(10, TimeUnit.SECONDS));
                assertTrue(chunk.getCause() instanceof DamagedBlockException, chunk.toString());
                assertNull(ssd.pathOf(current, 0));
                assertEquals(2, metrics.ssdChunkMismatches());
                assertEquals(2, metrics.ssdCorruptBlocks());
            }
            finally
            {
                currentFile.release();
                legacy.release();
            }
        }
    }

    /** Rewrites a block file's header in the version 2 layout (no chunk CRCs), the data left as it is. */
    private static void rewriteAsVersion2(final Path file) throws IOException
    {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE))
        {
            final ByteBuffer header = ByteBuffer.allocate(BlockFileFormat.HEADER_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
            channel.read(header, 0);
            final int names = (header.getShort(32) & 0xFFFF) + (header.getShort(34) & 0xFFFF);
            final byte[] v2 = new byte[BlockFileFormat.HEADER_LENGTH];
            final ByteBuffer out = ByteBuffer.wrap(v2).order(ByteOrder.LITTLE_ENDIAN);
            out.put(0, header.array(), 0, BlockFileFormat.NAMES_OFFSET + names);
            out.putShort(4, BlockFileFormat.LEGACY_VERSION).putShort(6, (short) 0);
            final UnsafeBuffer view = new UnsafeBuffer(v2);
            out.putInt(36, Crc32c.compute(view, 0, 36) * 31 + Crc32c.compute(view, 40, 8 + names));
            channel.write(out.clear(), 0);
        }
    }

    @Test
    void scrubFindsDamageAfterTheFirstCheckAndVerifiesTheRest() throws Exception
    {
        final TierCounters metrics = new TierCounters();
        final UnsafeBuffer bytes = new UnsafeBuffer(new byte[BLOCK]);
        final UnsafeBuffer staging = new UnsafeBuffer(ByteBuffer.allocateDirect(BLOCK));
        try (metrics; SsdTier ssd = SsdTier.open(dir.resolve("scrub"), 64L * BLOCK, metrics))
        {
            for (int i = 0; i < 4; i++)
            {
                bytes.putInt(0, i);
                assertTrue(ssd.write(new ObjectName("ns", "s"), i, bytes, 0, BLOCK));
            }
            // block 1 is checked once (so it could go out with sendfile), then damaged on disk
            assertEquals(BLOCK, ssd.read(new ObjectName("ns", "s"), 1, staging));
            final SsdFile open = ssd.openVerified(new ObjectName("ns", "s"), 1, BLOCK);
            assertNotNull(open, "verified once");
            open.release();
            try (FileChannel channel = FileChannel.open(ssd.pathOf(new ObjectName("ns", "s"), 1),
                StandardOpenOption.WRITE))
            {
                channel.write(ByteBuffer.wrap(new byte[] {1, 2, 3}), BlockFileFormat.HEADER_LENGTH + 500);
            }
            assertNull(ssd.openVerified(new ObjectName("ns", "s"), 0, BLOCK), "block 0 not checked yet");

            final long checked = ssd.scrub(Long.MAX_VALUE, staging);
            assertEquals(4L * (BlockFileFormat.HEADER_LENGTH + BLOCK), checked, "one pass over every block");
            assertEquals(4, metrics.ssdScrubbedBlocks());
            assertEquals(1, metrics.ssdCorruptBlocks(), "the damaged block was found");
            assertEquals(3, ssd.blockCount(), "and dropped");
            assertEquals(-1, ssd.lengthOf(new ObjectName("ns", "s"), 1));
            for (final int good : new int[] {0, 2, 3})
            {
                final SsdFile verified = ssd.openVerified(new ObjectName("ns", "s"), good, BLOCK);
                assertNotNull(verified, "block " + good + " verified by the scrub");
                verified.release();
            }
            // a small allowance checks a few blocks per call and resumes where it stopped
            assertEquals(BlockFileFormat.HEADER_LENGTH + BLOCK, ssd.scrub(1, staging));
            assertEquals(5, metrics.ssdScrubbedBlocks());
        }
    }

    /**
     * The scrub's coverage guarantee: calls of {@code b} bytes each walk the blocks in publication order from where
     * the last call stopped, so from any starting point {@code ceil(tier bytes / b)} calls re-check every block once,
     * and damage to any of them is found within them. At the store's rate {@code r} (one call of {@code r / 10} per
     * idle 100 ms of the spill writer) that is every block within {@code tier bytes / r} seconds of idle time.
     */
    @Test
    void scrubCallsCoverEveryBlockWithinOneCycleFromAnyStart() throws Exception
    {
        final int blocks = 12;
        final int perCall = 3;
        final long fileBytes = BlockFileFormat.HEADER_LENGTH + BLOCK;
        final TierCounters metrics = new TierCounters();
        final UnsafeBuffer bytes = new UnsafeBuffer(new byte[BLOCK]);
        final UnsafeBuffer staging = new UnsafeBuffer(ByteBuffer.allocateDirect(BLOCK));
        final ObjectName name = new ObjectName("ns", "cover");
        try (metrics; SsdTier ssd = SsdTier.open(dir.resolve("cover"), 64L * BLOCK, metrics))
        {
            for (int i = 0; i < blocks; i++)
            {
                bytes.putInt(0, i);
                assertTrue(ssd.write(name, i, bytes, 0, BLOCK));
            }
            int start = 0;
            for (final int damaged : new int[] {0, 7, 11, 4})
            {
                // start the cycle somewhere else each time
                for (int skip = 0; skip < start; skip++)
                {
                    ssd.scrub(1, staging);
                }
                start = (start + 5) % blocks;
                try (FileChannel channel = FileChannel.open(ssd.pathOf(name, damaged), StandardOpenOption.WRITE))
                {
                    channel.write(ByteBuffer.wrap(new byte[] {9, 9, 9}), BlockFileFormat.HEADER_LENGTH + 17);
                }
                final long scrubbedBefore = metrics.ssdScrubbedBlocks();
                final long corruptBefore = metrics.ssdCorruptBlocks();
                for (int call = 0; call < blocks / perCall; call++)
                {
                    // an allowance just over two blocks' files checks three (a block is checked whole once begun)
                    ssd.scrub(2 * fileBytes + 1, staging);
                }
                assertEquals(blocks, metrics.ssdScrubbedBlocks() - scrubbedBefore, "one cycle checks every block");
                assertEquals(corruptBefore + 1, metrics.ssdCorruptBlocks(), "damage to block " + damaged + " found");
                assertEquals(-1, ssd.lengthOf(name, damaged), "and the block dropped");
                bytes.putInt(0, damaged);
                assertTrue(ssd.write(name, damaged, bytes, 0, BLOCK), "written again for the next round");
            }
        }
    }

    @Test
    void theSpillWriterScrubsWhileIdleSoPrefetchedBlocksBecomeSendable() throws Exception
    {
        final TestNames names = new TestNames(1);
        try (TieredBlockStore store = TieredBlockStore.open(new TieredBlockStore.Context()
            .blockSize(BLOCK)
            .ramCapacityBytes(4L * BLOCK)
            .ssdCapacityBytes(16L * (BLOCK + BlockFileFormat.HEADER_LENGTH))
            .ssdDir(dir.resolve("ssd"))
            .names(names)
            .ssdScrubBytesPerSecond(64L * BLOCK)))
        {
            for (int i = 0; i < 3; i++)
            {
                put(store, names, "p", i, BLOCK, FetchClass.PREFETCH);
            }
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (store.metrics().ssdScrubbedBlocks() < 3)
            {
                assertTrue(System.nanoTime() < deadline, "the idle writer never scrubbed");
                Thread.sleep(10);
            }
            for (int i = 0; i < 3; i++)
            {
                final SsdFile open = store.openFile(names.blockKey("p", i), BLOCK);
                assertNotNull(open, "prefetched block " + i + " verified by the scrub, no first read needed");
                open.release();
            }
            assertEquals(0, store.liveSlots(), "the scrub took no RAM slot");
        }
    }

    @Test
    void objectSizesRecordedWithBlocksSurviveAReopen()
    {
        final TierCounters metrics = new TierCounters();
        final UnsafeBuffer bytes = new UnsafeBuffer(new byte[BLOCK]);
        try (SsdTier ssd = SsdTier.open(dir.resolve("sizes"), 64L * BLOCK, metrics))
        {
            assertTrue(ssd.write(new ObjectName("ns", "known"), 0, 5L * BLOCK + 7, bytes, 0, BLOCK, -1, null, -1));
            assertTrue(ssd.write(new ObjectName("ns", "known"), 5, 5L * BLOCK + 7, bytes, 0, 7, -1, null, -1));
            assertTrue(ssd.write(new ObjectName("ns", "unknown"), 0, bytes, 0, BLOCK));
        }
        try (metrics; SsdTier ssd = SsdTier.open(dir.resolve("sizes"), 64L * BLOCK, metrics))
        {
            assertEquals(3, ssd.blockCount());
            assertEquals(Map.of(new ObjectName("ns", "known"), 5L * BLOCK + 7), ssd.objectSizes(),
                "a block written without a size records none");
        }
    }

    @Test
    void ssdCapacityEvictsOldestFirstWithinCapacity()
    {
        final TestNames names = new TestNames(1);
        try (TieredBlockStore store = open(names, 4, 3))
        {
            for (int i = 0; i < 5; i++)
            {
                assertTrue(put(store, names, "cap", i, BLOCK, FetchClass.PREFETCH));
            }
            assertEquals(3, store.ssd().blockCount());
            assertTrue(store.ssd().sizeBytes() <= 3L * (BLOCK + BlockFileFormat.HEADER_LENGTH));
            assertFalse(store.onSsd(names.blockKey("cap", 0)));
            assertFalse(store.onSsd(names.blockKey("cap", 1)));
            assertTrue(store.onSsd(names.blockKey("cap", 4)));
        }
    }

    @Test
    void noSlotLeaksAfterCloseAndReadersKeepTheirBlockAcrossEviction()
    {
        final TestNames names = new TestNames(1);
        final TieredBlockStore store = open(names, 2, 16);
        put(store, names, "r", 0, BLOCK, FetchClass.DEMAND);
        final BlockRef held = store.acquire(names.blockKey("r", 0));
        assertNotNull(held);
        for (int i = 1; i < 6; i++)
        {
            put(store, names, "r", i, BLOCK, FetchClass.DEMAND);
        }
        final byte[] bytes = new byte[BLOCK];
        held.buffer().getBytes(0, bytes);
        assertArrayEquals(content("r", 0, BLOCK), bytes, "an evicted block stays intact while a reader holds it");
        held.release();
        store.close();
        assertEquals(0, store.liveSlots());
    }

    @Test
    void concurrentReadersAndWritersAlwaysSeeTheRightBytes() throws Exception
    {
        final TestNames names = new TestNames(1);
        final AtomicLong checked = new AtomicLong();
        final int keys = 40;
        final ExecutorService pool = Executors.newFixedThreadPool(4);
        try (TieredBlockStore store = open(names, 8, 24))
        {
            final List<Future<?>> futures = new ArrayList<>();
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
            for (int t = 0; t < 4; t++)
            {
                futures.add(pool.submit(() ->
                {
                    final ThreadLocalRandom random = ThreadLocalRandom.current();
                    while (System.nanoTime() < deadline)
                    {
                        final int index = random.nextInt(keys);
                        final byte[] got = read(store, names, "s", index);
                        if (null == got)
                        {
                            put(store, names, "s", index, BLOCK, random.nextInt(4) == 0 ?
                                FetchClass.PREFETCH : FetchClass.DEMAND);
                        }
                        else
                        {
                            assertArrayEquals(content("s", index, BLOCK), got);
                            checked.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            for (final Future<?> future : futures)
            {
                future.get(30, TimeUnit.SECONDS);
            }
        }
        finally
        {
            pool.shutdownNow();
        }
        assertTrue(checked.get() > 100, "enough hits were checked: " + checked.get());
    }

    private static void flipByte(final Path file, final long position) throws IOException
    {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE))
        {
            final ByteBuffer one = ByteBuffer.allocate(1);
            channel.read(one, position);
            one.put(0, (byte) (one.get(0) ^ 0x5A));
            one.clear();
            channel.write(one, position);
        }
    }
}
