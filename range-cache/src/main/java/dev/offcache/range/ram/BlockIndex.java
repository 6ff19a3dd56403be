package dev.offcache.range.ram;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.function.Consumer;

import dev.offcache.core.slab.BlockRef;

/**
 * The RAM block store's map from block key to resident block: an open-addressing, linear-probing table with one writer
 * (the store's maintenance writer) and any number of lock-free readers.
 *
 * <p>Why this shape: a {@code ConcurrentHashMap<Long, ...>} boxes the key on every lookup, and a striped map under
 * locks puts a lock on the hit path. With a single writer, readers need no lock at all: each cell holds an immutable
 * {@link Entry} (key + block) published with a release store and read with an acquire load, and removal leaves a
 * tombstone instead of moving entries. A reader that races with the writer can at worst miss an entry that is just
 * being added or removed (a false miss costs a refetch); it can never return another key's block, because it
 * compares the key inside the immutable entry and then retains the {@link BlockRef}, which is never reused for
 * another slot occupant. When tombstones pile up, the writer rebuilds the table into a new array and publishes it.
 */
final class BlockIndex
{
    /**
     * One resident block: its key, its length, the owner's reference and the flag its eviction hands to the
     * store's {@link EvictionListener}. Immutable, so a reader copying without a reference takes the length from here
     * rather than from the handle.
     */
    static final class Entry
    {
        final long key;
        final int length;
        final BlockRef ref;
        final boolean spill;

        Entry(final long key, final int length, final BlockRef ref, final boolean spill)
        {
            this.key = key;
            this.length = length;
            this.ref = ref;
            this.spill = spill;
        }
    }

    private static final Entry TOMBSTONE = new Entry(-1, 0, null, false);
    private static final VarHandle CELLS = MethodHandles.arrayElementVarHandle(Entry[].class);

    private volatile Entry[] table;
    private int size;
    private int tombstones;

    BlockIndex(final int maxEntries)
    {
        int length = 16;
        while (length < maxEntries * 2L)
        {
            length <<= 1;
        }
        table = new Entry[length];
    }

    /**
     * Finds the entry of a key; any thread, lock-free, no allocation.
     */
    Entry get(final long key)
    {
        final Entry[] cells = table;
        final int mask = cells.length - 1;
        int i = hash(key) & mask;
        while (true)
        {
            final Entry entry = (Entry) CELLS.getAcquire(cells, i);
            if (entry == null)
            {
                return null;
            }
            if (entry.key == key)
            {
                return entry;
            }
            i = (i + 1) & mask;
        }
    }

    /**
     * Adds an entry whose key is absent; the writer only.
     */
    void put(final Entry entry)
    {
        if ((size + tombstones + 1) * 4L > table.length * 3L)
        {
            rebuild();
        }
        final Entry[] cells = table;
        final int mask = cells.length - 1;
        int i = hash(entry.key) & mask;
        while (true)
        {
            final Entry current = cells[i];
            if (current == null || current == TOMBSTONE)
            {
                if (current == TOMBSTONE)
                {
                    tombstones--;
                }
                CELLS.setRelease(cells, i, entry);
                size++;
                return;
            }
            i = (i + 1) & mask;
        }
    }

    /**
     * Removes the entry of a key; the writer only.
     *
     * @return the removed entry, or null if absent.
     */
    Entry remove(final long key)
    {
        final Entry[] cells = table;
        final int mask = cells.length - 1;
        int i = hash(key) & mask;
        while (true)
        {
            final Entry entry = cells[i];
            if (entry == null)
            {
                return null;
            }
            if (entry.key == key)
            {
                CELLS.setRelease(cells, i, TOMBSTONE);
                size--;
                tombstones++;
                return entry;
            }
            i = (i + 1) & mask;
        }
    }

    int size()
    {
        return size;
    }

    /**
     * Visits every entry; the writer only.
     */
    void forEach(final Consumer<Entry> action)
    {
        for (final Entry entry : table)
        {
            if (entry != null && entry != TOMBSTONE)
            {
                action.accept(entry);
            }
        }
    }

    /**
     * Empties the table; the writer only.
     */
    void clear()
    {
        table = new Entry[table.length];
        size = 0;
        tombstones = 0;
    }

    private void rebuild()
    {
        final Entry[] old = table;
        final Entry[] cells = new Entry[old.length];
        final int mask = cells.length - 1;
        for (final Entry entry : old)
        {
            if (entry != null && entry != TOMBSTONE)
            {
                int i = hash(entry.key) & mask;
                while (cells[i] != null)
                {
                    i = (i + 1) & mask;
                }
                cells[i] = entry;
            }
        }
        tombstones = 0;
        table = cells;
    }

    private static int hash(final long key)
    {
        long x = key * 0x9E3779B97F4A7C15L;
        x ^= x >>> 32;
        return (int) x ^ (int) (x >>> 16);
    }
}
