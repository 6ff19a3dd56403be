package dev.offcache.range.ram;

import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongConsumer;

import dev.offcache.core.config.ConcludeOnce;
import dev.offcache.core.slab.BlockRef;
import dev.offcache.core.slab.BlockSlab;
import dev.offcache.range.metrics.MetricFamilies;
import dev.offcache.range.metrics.MetricNames;
import dev.offcache.range.policy.EvictionPolicy;
import dev.offcache.range.policy.PolicyKind;
import dev.offcache.range.store.BlockStore;
import dev.offcache.range.store.EvictionStats;
import dev.offcache.range.store.FetchClass;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * The RAM block store: blocks held off-heap in {@link BlockSlab} slots (one slot per block, slot size = the block
 * size) under a capacity, evicted by a pluggable policy ({@link PolicyKind}: W-TinyLFU by default). It is the
 * engine's in-process L1 tier and, with an {@link EvictionListener}, the L2 server's RAM tier (LRU, evicted blocks
 * spilled to SSD).
 *
 * <p><b>Hit path.</b> {@link #acquire(long)} looks the key up in a lock-free single-writer table
 * ({@link BlockIndex}), retains the slot's {@link BlockRef} with one CAS and records the access in a lossy striped
 * ring ({@link AccessBuffer}); it takes no lock and allocates nothing. When a ring stripe fills, the reader tries to
 * become the maintenance writer (one CAS on a flag; if another thread holds it the reader just goes on) and
 * replays the recorded accesses into the policy: at once while puts have left credit, so the policy sees every
 * hit while blocks are being stored, and only now and then in a long run of hits with no miss
 * ({@link Context#hitSampling}).
 *
 * <p><b>Writes.</b> {@link #put} copies the block into a free slot outside any critical section, then enters the
 * maintenance writer (a CAS-acquired flag; critical sections are short and bounded: a buffer drain, a policy update,
 * at most a few evictions) to publish it. An owner that fills slots itself (from a file, with a CRC) does the same in
 * two steps: {@link #allocate()} a slot, fill it, {@link #publish} it. When no slot is free the writer evicts: the
 * policy names the victim, the store removes it from the table and drops the owner's reference, or hands it to the
 * {@link EvictionListener}, which may keep the block readable until it calls {@link #evictionDone} (the L2 server's
 * spill to SSD); the slot returns to the slab when the last reference is released, so a reader never sees its bytes
 * change. Prefetched blocks ({@link FetchClass#PREFETCH}) have
 * lower priority: they skip the admission window and enter where they are evicted first unless read, and when the
 * store is full they are admitted only if the policy estimates them more popular than its next victim.
 *
 * <p><b>Memory.</b> The store owns the slab and every resident block's owner reference; a reader owns the reference
 * {@link #acquire(long)} returned until it releases it. The capacity can never be exceeded: the slab has exactly
 * {@code capacity / blockSize} slots (plus {@link Context#spareSlots} for evicted blocks a listener still holds) and a
 * block needs a slot. {@link #close()} drops every owner reference and closes the slab, whose memory is unmapped when
 * the last reader (or listener) releases.
 */
public final class RamBlockStore implements BlockStore, EvictionStats
{
    private static final int EVICTION_ATTEMPTS = 8;
    // Hit recording at full rate is paid for by puts: each grants the readers this many drains of a full ring
    // stripe (64 hits, ~4.5 us of policy work against a block copy and an origin fetch), saved up to the cap (64 Ki
    // hits) for the long runs of hits between misses that a hit-heavy trace has.
    static final int DRAINS_PER_PUT = 4;
    static final int MAX_DRAIN_CREDIT = 4096;

    private final BlockSlab slab;
    private final int blockSize;
    private final EvictionPolicy policy;
    private final BlockIndex index;
    /** Evicted blocks the listener took and has not handed back: still readable. Same single writer as the index. */
    private final BlockIndex leaving;
    private final EvictionListener listener;
    private final AccessBuffer accesses;
    private final LongConsumer recordAccess;
    private final AtomicBoolean maintenance = new AtomicBoolean();
    private final int sampleMask;
    private volatile boolean closed;
    // Full-rate drains readers may still do: granted by puts, spent by drains (both under the maintenance flag).
    private volatile int drainCredit;
    private volatile long creditedDrains;
    private volatile long recordedAccesses;

    // Written only by the maintenance writer; volatile so other threads read current values.
    private volatile long puts;
    private volatile long rejections;
    private volatile long evictions;
    private volatile long residentBytes;

    /**
     * Creates a store as the context describes; concludes the context first.
     *
     * @param context capacity, block size and policy.
     */
    public RamBlockStore(final Context context)
    {
        context.conclude();
        blockSize = context.blockSize();
        final int slots = context.slotCount();
        policy = context.policy().create(slots);
        index = new BlockIndex(slots);
        listener = context.evictionListener();
        leaving = new BlockIndex(null == listener ? 1 : slots + context.spareSlots());
        accesses = new AccessBuffer(AccessBuffer.stripesFor(Runtime.getRuntime().availableProcessors()));
        recordAccess = policy::recordAccess;
        sampleMask = context.hitSampling() == 1 ? 0 : AccessBuffer.STRIPE_CELLS * context.hitSampling() - 1;
        slab = BlockSlab.anonymous((long) (slots + context.spareSlots()) * blockSize, blockSize);
    }

    /**
     * Creates a W-TinyLFU store: the shape of the engine's store factory ({@code RamBlockStore::create}).
     *
     * @param capacityBytes the capacity, at least one block.
     * @param blockSize   the engine's block size, a power of two in [4 KiB, 16 MiB].
     * @return the store, owning its slab.
     */
    public static RamBlockStore create(final long capacityBytes, final int blockSize)
    {
        return new RamBlockStore(new Context().capacityBytes(capacityBytes).blockSize(blockSize));
    }

    /**
     * {@inheritDoc}
     */
    public BlockRef acquire(final long blockKey)
    {
        if (closed)
        {
            return null;
        }
        final BlockIndex.Entry entry = index.get(blockKey);
        if (entry != null && entry.ref.tryRetain())
        {
            recordHit(blockKey);
            return entry.ref;
        }
        recordMiss(blockKey);
        final BlockIndex.Entry evicted = leaving.get(blockKey);
        return evicted != null && evicted.ref.tryRetain() ? evicted.ref : null;
    }

    /**
     * Whether the block is resident or evicted and still held by the listener, so that {@link #acquire} would find
     * it; records no access.
     *
     * @param blockKey the block's key.
     * @return whether the store holds it.
     */
    public boolean holds(final long blockKey)
    {
        return resident(blockKey) || leaving.get(blockKey) != null;
    }

    /**
     * Whether the block is resident (not evicted); records no access.
     *
     * @param blockKey the block's key.
     * @return whether the index holds it.
     */
    public boolean resident(final long blockKey)
    {
        return index.get(blockKey) != null;
    }

    /**
     * {@inheritDoc}
     *
     * <p>Copies without a reference ({@link BlockRef#tryCopy}): no reference-count update, so readers of one hot
     * block on several threads do not contend. If the block is evicted, and its slot possibly re-used, while the
     * bytes are copied, the copy is discarded and the block is read again under a reference (or is a miss).
     */
    public int read(
        final long blockKey,
        final int offsetInBlock,
        final MutableDirectBuffer destination,
        final int destOffset,
        final int length)
    {
        BlockStore.checkRead(offsetInBlock, length);
        if (closed)
        {
            return -1;
        }
        final BlockIndex.Entry entry = index.get(blockKey);
        if (entry != null)
        {
            final int blockLength = entry.length;
            if (entry.ref.tryCopy(
                offsetInBlock, destination, destOffset, BlockStore.copyLength(blockLength, offsetInBlock, length)))
            {
                recordHit(blockKey);
                return blockLength;
            }
        }
        return BlockStore.super.read(blockKey, offsetInBlock, destination, destOffset, length);
    }

    /**
     * {@inheritDoc}
     *
     * @throws IllegalArgumentException if the key is negative or the length is not in [1, block size].
     */
    public boolean put(
        final long blockKey,
        final DirectBuffer source,
        final int offset,
        final int length,
        final FetchClass fetchClass)
    {
        if (blockKey < 0)
        {
            throw new IllegalArgumentException("blockKey must be >= 0: " + blockKey);
        }
        if (length < 1 || length > blockSize)
        {
            throw new IllegalArgumentException("block length must be in [1, " + blockSize + "]: " + length);
        }
        if (closed)
        {
            return false;
        }
        final BlockIndex.Entry present = index.get(blockKey);
        if (present != null && !present.ref.isReleased())
        {
            return true;
        }

        final boolean lowPriority = fetchClass == FetchClass.PREFETCH;
        BlockRef ref = tryAllocate();
        if (ref == null)
        {
            ref = evictAndAllocate(blockKey, lowPriority);
            if (ref == null)
            {
                return false;
            }
        }
        try
        {
            ref.buffer().putBytes(0, source, offset, length);
            ref.length(length);
        }
        catch (final RuntimeException | Error ex)
        {
            ref.release();
            throw ex;
        }
        // A racing put of the same block may have won; both copies hold the same bytes.
        return admit(blockKey, ref, lowPriority, null != listener, false) != null;
    }

    /**
     * A free slot for the caller to fill in place (then {@link #publish} it), evicting as a demand put would when
     * none is free. The caller owns the returned reference until it publishes or releases it.
     *
     * @return a slot, or null when the store is closed or every slot is held (by readers, a listener or fills).
     */
    public BlockRef allocate()
    {
        if (closed)
        {
            return null;
        }
        final BlockRef ref = tryAllocate();
        return ref != null ? ref : evictAndAllocate(EvictionPolicy.NO_KEY, false);
    }

    /**
     * A slot that is free now, evicting nothing, and only while more than {@code keepFree} slots are free: for a fill
     * that may not happen (a reservation ahead of an origin GET whose object may end before the slot's block), and
     * so an owner can keep a share of the free slots for other fills (the L2 server keeps them for puts and the
     * evictions they spill). The count is read, not claimed: concurrent callers may together take a few past it. The
     * caller owns the reference until it publishes or releases it.
     *
     * @param keepFree free slots to leave, at least 0.
     * @return a free slot, or null when the store is closed or no more than {@code keepFree} slots are free.
     */
    public BlockRef allocateIfMoreFreeThan(final int keepFree)
    {
        return closed || slab.freeSlots() <= keepFree ? null : tryAllocate();
    }

    /**
     * Makes a slot from {@link #allocate()} or {@link #allocateIfMoreFreeThan} resident as a demand block, its length
     * (and CRC) set by the caller, or keeps the block already resident under that key. Either way {@code slot}
     * passes to the store (which releases it if not kept) and the caller gets one reader reference.
     *
     * @param blockKey a non-negative key.
     * @param slot     the filled slot, length in [1, block size].
     * @param spill    handed to the {@link EvictionListener} when the block is evicted (the L2 server: not on SSD).
     * @return a retained reference to the resident block, to release; null if the store closed, or if a racing
     *         block of that key was being evicted.
     * @throws IllegalArgumentException if the key is negative or the length is not in [1, block size].
     */
    public BlockRef publish(final long blockKey, final BlockRef slot, final boolean spill)
    {
        checkFilled(blockKey, slot);
        final BlockIndex.Entry entry = admit(blockKey, slot, false, spill, true);
        return null == entry ? null : entry.ref;
    }

    /**
     * As {@link #publish}, for a fill no one reads at once: no reader reference is taken, so none is released
     * (two reference-count updates fewer per fill).
     *
     * @param blockKey a non-negative key.
     * @param slot     the filled slot, length in [1, block size]; it passes to the store either way.
     * @param spill    handed to the {@link EvictionListener} when the block is evicted (the L2 server: not on SSD).
     * @return whether the block, or one already resident under that key, is resident; false if the store closed.
     * @throws IllegalArgumentException if the key is negative or the length is not in [1, block size].
     */
    public boolean publishUnread(final long blockKey, final BlockRef slot, final boolean spill)
    {
        checkFilled(blockKey, slot);
        return null != admit(blockKey, slot, false, spill, false);
    }

    private static void checkFilled(final long blockKey, final BlockRef slot)
    {
        if (blockKey < 0 || slot.length() < 1)
        {
            slot.release();
            throw new IllegalArgumentException("blockKey must be >= 0 and the slot filled: " + blockKey + ", " +
                slot);
        }
    }

    /**
     * Hands back an evicted block the {@link EvictionListener} took: it is no longer readable, and the listener's
     * reference is released. Any thread; also after {@link #close()}.
     *
     * @param blockKey the key the listener was given.
     * @param ownerRef the reference the listener was given.
     */
    public void evictionDone(final long blockKey, final BlockRef ownerRef)
    {
        lockWriter();
        try
        {
            final BlockIndex.Entry entry = leaving.get(blockKey);
            if (entry != null && entry.ref == ownerRef)
            {
                leaving.remove(blockKey);
            }
        }
        finally
        {
            unlockWriter();
        }
        ownerRef.release();
    }

    /**
     * Evicts every resident block into the given listener (not the store's; evictions are not counted), as an
     * owner does before {@link #close()} to keep what only RAM holds. Blocks it takes stay readable until handed back
     * with {@link #evictionDone}.
     *
     * @param to receives every resident block.
     * @throws IllegalStateException if the store was built without an {@link EvictionListener}.
     */
    public void evictAll(final EvictionListener to)
    {
        if (null == listener)
        {
            throw new IllegalStateException("evictAll needs a store built with an eviction listener: " + this);
        }
        lockWriter();
        try
        {
            drain();
            while (policy.size() > 0)
            {
                evictOne(to);
            }
        }
        finally
        {
            unlockWriter();
        }
    }

    /**
     * {@inheritDoc}
     */
    public long sizeBytes()
    {
        return residentBytes;
    }

    /**
     * {@inheritDoc}
     */
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        lockWriter();
        try
        {
            index.forEach((entry) -> entry.ref.release());
            index.clear();
            residentBytes = 0;
            try
            {
                slab.close();
            }
            catch (final IllegalStateException ex)
            {
                // Readers (or a put that raced with close) still hold slots: the slab unmaps when they release.
            }
        }
        finally
        {
            unlockWriter();
        }
    }

    /**
     * The block (and slot) size.
     *
     * @return bytes per block.
     */
    public int blockSize()
    {
        return blockSize;
    }

    /**
     * The number of blocks the capacity holds.
     *
     * @return resident blocks at most.
     */
    public int capacityBlocks()
    {
        return policy.capacity();
    }

    /**
     * The number of resident blocks.
     *
     * @return blocks in the index.
     */
    public int residentBlocks()
    {
        return policy.size();
    }

    /**
     * Slots that still have a reference: resident blocks, evicted blocks a reader still holds, and puts in progress.
     * Zero after {@link #close()} once every reader has released: the leak check.
     *
     * @return live slots of the slab.
     */
    public int liveSlots()
    {
        return slab.liveSlots();
    }

    /**
     * Copies ({@link #read}) that were discarded because the block was evicted, or the store closed, while its
     * bytes were copied without a reference; each was then read again under a reference, or became a miss.
     *
     * @return copies discarded and redone.
     */
    public long copyConflicts()
    {
        return slab.optimisticCopyConflicts();
    }

    /**
     * Blocks stored.
     *
     * @return puts that added a block.
     */
    public long puts()
    {
        return puts;
    }

    /**
     * Blocks declined: a prefetched block the policy did not admit, or no slot could be freed.
     *
     * @return declined puts.
     */
    public long rejections()
    {
        return rejections;
    }

    /**
     * Blocks evicted to make room.
     *
     * @return evictions.
     */
    public long evictions()
    {
        return evictions;
    }

    /**
     * {@inheritDoc}
     */
    public long evictionCount()
    {
        return evictions;
    }

    /**
     * Adds the store's own events and occupancy ({@code offcache_range_l1_*}); lookups are the engine's
     * {@code offcache_range_block_*}, counted once each there, and evictions its
     * {@code offcache_range_evictions_total}.
     *
     * @param out the scrape's families.
     */
    @Override
    public void collectInto(final MetricFamilies out)
    {
        out.counter(MetricNames.L1_PUTS, MetricNames.help(MetricNames.L1_PUTS), puts);
        out.counter(MetricNames.L1_REJECTIONS, MetricNames.help(MetricNames.L1_REJECTIONS), rejections);
        out.counter(MetricNames.L1_COPY_CONFLICTS, MetricNames.help(MetricNames.L1_COPY_CONFLICTS), copyConflicts());
        out.gauge(MetricNames.L1_SIZE_BYTES, MetricNames.help(MetricNames.L1_SIZE_BYTES), residentBytes);
        out.gauge(MetricNames.L1_RESIDENT_BLOCKS, MetricNames.help(MetricNames.L1_RESIDENT_BLOCKS), residentBlocks());
        out.gauge(MetricNames.L1_CAPACITY_BLOCKS, MetricNames.help(MetricNames.L1_CAPACITY_BLOCKS), capacityBlocks());
    }

    /**
     * Replays recorded accesses into the policy now, if no other thread is doing maintenance. Called by readers
     * when a ring stripe fills; tests and benchmarks may call it to settle the policy.
     */
    public void tryDrain()
    {
        if (maintenance.compareAndSet(false, true))
        {
            try
            {
                drain();
            }
            finally
            {
                maintenance.set(false);
            }
        }
    }

    /**
     * Drains a reader did on a put's credit, recording every hit at full rate (see {@link Context#hitSampling}).
     *
     * @return drains on credit.
     */
    long creditedDrains()
    {
        return creditedDrains;
    }

    /**
     * Accesses replayed into the policy so far. For tests.
     *
     * @return accesses recorded.
     */
    long recordedAccesses()
    {
        return recordedAccesses;
    }

    /**
     * Checks, under the maintenance flag, that the policy, the index, the byte count and the slots agree: every
     * indexed block is in the policy and holds its slot, and the policy holds nothing else. For tests.
     *
     * @return null if they agree, else what is wrong.
     */
    String bookkeepingProblem()
    {
        lockWriter();
        try
        {
            final long[] bytes = {0};
            final StringBuilder problem = new StringBuilder();
            index.forEach((entry) ->
            {
                bytes[0] += entry.length;
                if (!policy.contains(entry.key) || entry.ref.isReleased())
                {
                    problem.append("block ").append(entry.key).append(" indexed but ")
                        .append(entry.ref.isReleased() ? "its slot released; " : "not in the policy; ");
                }
            });
            if (index.size() != policy.size())
            {
                problem.append("index holds ").append(index.size()).append(", policy ").append(policy.size())
                    .append("; ");
            }
            if (bytes[0] != residentBytes)
            {
                problem.append("index holds ").append(bytes[0]).append(" bytes, counted ").append(residentBytes);
            }
            return problem.length() == 0 ? null : problem.toString();
        }
        finally
        {
            unlockWriter();
        }
    }

    /**
     * {@inheritDoc}
     */
    public String toString()
    {
        return "RamBlockStore{blockSize=" + blockSize +
            ", capacityBlocks=" + policy.capacity() +
            ", residentBlocks=" + policy.size() +
            ", residentBytes=" + residentBytes +
            ", puts=" + puts +
            ", rejections=" + rejections +
            ", evictions=" + evictions +
            ", closed=" + closed +
            '}';
    }

    private void recordHit(final long blockKey)
    {
        // Every hit goes into the ring while its stripe has room (contended offers are dropped, as in Caffeine). A
        // full stripe is replayed into the policy at once while puts have left credit: while blocks are being stored
        // the policy sees every hit and decides as if unsampled. Without credit (a long run of hits and no misses:
        // no eviction to decide) only one full stripe in 16 x hitSampling is replayed, the rest dropped, so an
        // all-hit workload records about one hit in hitSampling and stays cheap (replaying costs more than the
        // lookup itself). docs/range-cache.md has the hit ratios of each choice.
        if (accesses.offer(blockKey))
        {
            if (drainCredit > 0)
            {
                drainOnCredit();
            }
            else if (sampleMask == 0 || (ThreadLocalRandom.current().nextInt() & sampleMask) == 0)
            {
                tryDrain();
            }
        }
    }

    private int drain()
    {
        final int drained = accesses.drainTo(recordAccess);
        recordedAccesses += drained;
        return drained;
    }

    private void drainOnCredit()
    {
        if (maintenance.compareAndSet(false, true))
        {
            try
            {
                final int credit = drainCredit;
                if (credit > 0 && drain() > 0)
                {
                    drainCredit = credit - 1;
                    creditedDrains++;
                }
            }
            finally
            {
                maintenance.set(false);
            }
        }
    }

    private void recordMiss(final long blockKey)
    {
        if (blockKey >= 0 && accesses.offer(blockKey))
        {
            tryDrain();
        }
    }

    private BlockRef tryAllocate()
    {
        try
        {
            return slab.tryAllocate();
        }
        catch (final IllegalStateException ex)
        {
            // The slab was closed by a racing close(): the put is simply declined.
            return null;
        }
    }

    /**
     * Publishes a filled slot under the maintenance writer, or keeps the resident block of that key; returns the
     * resident entry (retained for the caller when {@code retain}), or null with {@code ref} released.
     */
    private BlockIndex.Entry admit(
        final long blockKey, final BlockRef ref, final boolean lowPriority, final boolean spill, final boolean retain)
    {
        BlockIndex.Entry entry = null;
        lockWriter();
        try
        {
            if (!closed)
            {
                drain();
                entry = index.get(blockKey);
                if (entry != null)
                {
                    entry = !retain || entry.ref.tryRetain() ? entry : null;
                }
                else
                {
                    while (policy.size() >= policy.capacity())
                    {
                        evictions++;
                        evictOne(listener);
                    }
                    policy.add(blockKey, lowPriority);
                    drainCredit = Math.min(MAX_DRAIN_CREDIT, drainCredit + DRAINS_PER_PUT);
                    entry = new BlockIndex.Entry(blockKey, ref.length(), ref, spill);
                    index.put(entry);
                    residentBytes += entry.length;
                    puts++;
                    if (retain)
                    {
                        // under the writer, so no eviction can drop the owner's reference first
                        ref.tryRetain();
                    }
                    if (null != listener)
                    {
                        listener.admitted(blockKey, entry.length);
                    }
                }
            }
        }
        finally
        {
            unlockWriter();
        }
        if (null == entry || entry.ref != ref)
        {
            ref.release();
        }
        return entry;
    }

    private BlockRef evictAndAllocate(final long blockKey, final boolean lowPriority)
    {
        // One eviction per critical section, the allocation and any wait outside it: an owner handing back an
        // evicted block (evictionDone) needs the writer to free the slot this put is waiting for.
        for (int attempt = 0; attempt < EVICTION_ATTEMPTS; attempt++)
        {
            boolean evicted = false;
            lockWriter();
            try
            {
                if (closed)
                {
                    return null;
                }
                drain();
                if (attempt == 0 && lowPriority && !policy.admits(blockKey))
                {
                    rejections++;
                    return null;
                }
                if (policy.size() > 0)
                {
                    evictions++;
                    evictOne(listener);
                    evicted = true;
                }
            }
            finally
            {
                unlockWriter();
            }
            final BlockRef ref = tryAllocate();
            if (ref != null)
            {
                return ref;
            }
            if (!evicted)
            {
                // Every slot is held by readers of evicted blocks, a listener or puts in progress: give them a moment.
                Thread.yield();
            }
        }
        lockWriter();
        try
        {
            rejections++;
        }
        finally
        {
            unlockWriter();
        }
        return null;
    }

    private void evictOne(final EvictionListener to)
    {
        final long victim = policy.evict();
        final BlockIndex.Entry entry = index.get(victim);
        if (entry == null)
        {
            throw new IllegalStateException("policy evicted block " + victim + " that the index does not hold");
        }
        residentBytes -= entry.length;
        boolean taken = false;
        try
        {
            taken = null != to && to.evicted(victim, entry.ref, entry.spill);
        }
        finally
        {
            if (taken)
            {
                // into the leaving table before out of the index, so a reader finds the block in one or the other
                if (leaving.get(victim) != null)
                {
                    leaving.remove(victim); // an older evicted copy: its taker still releases it
                }
                leaving.put(entry);
            }
            index.remove(victim);
            if (!taken)
            {
                entry.ref.release();
            }
        }
    }

    private void lockWriter()
    {
        int spins = 0;
        while (!maintenance.compareAndSet(false, true))
        {
            if (++spins < 64)
            {
                Thread.onSpinWait();
            }
            else
            {
                Thread.yield();
            }
        }
    }

    private void unlockWriter()
    {
        maintenance.set(false);
    }

    /**
     * Configuration of an {@link RamBlockStore}, its one way in (the engine's {@code RangeCacheBuilder} makes one
     * through {@link #create(long, int)} from its own capacity and block size; {@code OFFCACHE_L1_MB} is the engine's
     * setting, read there). Defaults: capacity 200 MiB, 1 MiB blocks, W-TinyLFU.
     */
    public static final class Context
    {
        /** Default capacity: 200 MiB, also the engine's default L1 capacity. */
        public static final long DEFAULT_CAPACITY_BYTES = 200L << 20;
        /** Default block size: 1 MiB, also the engine's default block size. */
        public static final int DEFAULT_BLOCK_SIZE = 1 << 20;
        /** Default hit sampling: in a long run of hits, about one in this many is recorded for the policy. */
        public static final int DEFAULT_HIT_SAMPLING = 16;
        /** Largest hit sampling. */
        public static final int MAX_HIT_SAMPLING = 1024;

        private final ConcludeOnce concluded = new ConcludeOnce();
        private long capacityBytes = DEFAULT_CAPACITY_BYTES;
        private int blockSize = DEFAULT_BLOCK_SIZE;
        private PolicyKind policy = PolicyKind.WINDOW_TINY_LFU;
        private int hitSampling = DEFAULT_HIT_SAMPLING;
        private int spareSlots;
        private EvictionListener evictionListener;

        /**
         * Sets the capacity in bytes; rounded down to whole blocks.
         *
         * @param capacityBytes at least one block.
         * @return this.
         */
        public Context capacityBytes(final long capacityBytes)
        {
            this.capacityBytes = capacityBytes;
            return this;
        }

        /**
         * Returns the capacity.
         *
         * @return bytes.
         */
        public long capacityBytes()
        {
            return capacityBytes;
        }

        /**
         * Sets the block size, which is also the slot size.
         *
         * @param blockSize a power of two in [4 KiB, 16 MiB].
         * @return this.
         */
        public Context blockSize(final int blockSize)
        {
            this.blockSize = blockSize;
            return this;
        }

        /**
         * Returns the block size.
         *
         * @return bytes.
         */
        public int blockSize()
        {
            return blockSize;
        }

        /**
         * Sets the eviction policy.
         *
         * @param policy the policy kind.
         * @return this.
         */
        public Context policy(final PolicyKind policy)
        {
            this.policy = policy;
            return this;
        }

        /**
         * Returns the eviction policy.
         *
         * @return the policy kind.
         */
        public PolicyKind policy()
        {
            return policy;
        }

        /**
         * Sets how sparsely hits are recorded for the eviction policy when no blocks are being stored. Every miss is
         * recorded, and every hit while puts have left the readers credit (each put grants some); past that credit,
         * in a long run of hits with no miss, about one hit in {@code oneIn} is (the rest dropped, whole ring
         * stripes at a time). 1 records every hit always (bar offers dropped under contention).
         *
         * @param oneIn a power of two in [1, {@value #MAX_HIT_SAMPLING}].
         * @return this.
         */
        public Context hitSampling(final int oneIn)
        {
            this.hitSampling = oneIn;
            return this;
        }

        /**
         * Returns the hit sampling.
         *
         * @return one hit in this many is recorded.
         */
        public int hitSampling()
        {
            return hitSampling;
        }

        /**
         * Sets the slots the slab has beyond the capacity, for evicted blocks the {@link #evictionListener} still
         * holds (a spill in flight), so they do not stall fills. Default 0.
         *
         * @param slots at least 0.
         * @return this.
         */
        public Context spareSlots(final int slots)
        {
            this.spareSlots = slots;
            return this;
        }

        /**
         * Returns the spare slots.
         *
         * @return slots beyond the capacity.
         */
        public int spareSlots()
        {
            return spareSlots;
        }

        /**
         * Sets who takes evicted blocks ({@link RamBlockStore#publish}, {@link RamBlockStore#evictionDone}); none by
         * default: the store releases them.
         *
         * @param listener the listener, or null.
         * @return this.
         */
        public Context evictionListener(final EvictionListener listener)
        {
            this.evictionListener = listener;
            return this;
        }

        /**
         * Returns the eviction listener.
         *
         * @return the listener, or null.
         */
        public EvictionListener evictionListener()
        {
            return evictionListener;
        }

        /**
         * The number of blocks the capacity holds.
         *
         * @return {@code capacityBytes / blockSize}.
         */
        public int slotCount()
        {
            return (int) Math.min(Integer.MAX_VALUE, capacityBytes / blockSize);
        }

        /**
         * Validates the configuration.
         *
         * @return this.
         * @throws IllegalArgumentException naming the first setting that is wrong.
         */
        public Context conclude()
        {
            concluded.conclude(this);
            if (!BlockSlab.isSlotSize(blockSize))
            {
                throw new IllegalArgumentException("L1 block size must be a power of two in [" +
                    BlockSlab.MIN_SLOT_SIZE + ", " + BlockSlab.MAX_SLOT_SIZE + "]: " + blockSize);
            }
            if (policy == null)
            {
                throw new IllegalArgumentException("L1 eviction policy must be set");
            }
            if (hitSampling < 1 || hitSampling > MAX_HIT_SAMPLING || Integer.bitCount(hitSampling) != 1)
            {
                throw new IllegalArgumentException("L1 hit sampling must be a power of two in [1, " +
                    MAX_HIT_SAMPLING + "]: " + hitSampling);
            }
            if (capacityBytes < blockSize)
            {
                throw new IllegalArgumentException("L1 capacity of " + capacityBytes +
                    " bytes is smaller than one block of " + blockSize + " bytes: give at least one block, or 0 to " +
                    "turn L1 off (the engine then reads through without building a store)");
            }
            if (capacityBytes / blockSize > (1 << 28))
            {
                throw new IllegalArgumentException(
                    "L1 capacity of " + capacityBytes + " bytes is more than 2^28 blocks of " + blockSize + " bytes");
            }
            if (spareSlots < 0 || spareSlots > (1 << 20))
            {
                throw new IllegalArgumentException("L1 spare slots must be in [0, 2^20]: " + spareSlots);
            }
            return this;
        }

        /**
         * {@inheritDoc}
         */
        public String toString()
        {
            return "RamBlockStore.Context{capacityBytes=" + capacityBytes + ", blockSize=" + blockSize +
                ", policy=" + policy + ", hitSampling=" + hitSampling + ", spareSlots=" + spareSlots +
                ", evictionListener=" + evictionListener + '}';
        }
    }
}
