package dev.offcache.server.tier;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@link SsdTier}'s bounded cache of verified block files kept open for sending (least recently used closed
 * first), so a hit costs a lookup, no open or close.
 *
 * <p>Not thread-safe: guarded by the tier's monitor, so a file is cached only while its block is indexed and is
 * detached in the same step that unindexes it. The cache holds one reference to each file it keeps; every method that
 * hands a file back leaves its release to the caller, outside the monitor.
 */
final class DescriptorCache
{
    private final LinkedHashMap<SsdTier.Entry, SsdFile> files = new LinkedHashMap<>(16, 0.75f, true);
    private final int capacity;

    /**
     * An empty cache.
     *
     * @param capacity files kept open; 0 keeps none.
     */
    DescriptorCache(final int capacity)
    {
        this.capacity = capacity;
    }

    /** Whether files are kept at all (a capacity above 0). */
    boolean enabled()
    {
        return capacity > 0;
    }

    /**
     * The cached file of a block with a reference taken for the caller (it becomes the most recently used), or null.
     */
    SsdFile retain(final SsdTier.Entry entry)
    {
        final SsdFile cached = files.get(entry);
        return null != cached && cached.tryRetain() ? cached : null;
    }

    /**
     * Keeps a file just opened: the cache keeps the first reference, the caller gets a second.
     *
     * @return the least recently used file pushed out over the capacity (the caller releases it), or null.
     */
    SsdFile admit(final SsdTier.Entry entry, final SsdFile opened)
    {
        files.put(entry, opened);
        opened.tryRetain();
        if (files.size() > capacity)
        {
            final Iterator<Map.Entry<SsdTier.Entry, SsdFile>> eldest = files.entrySet().iterator();
            final SsdFile evicted = eldest.next().getValue();
            eldest.remove();
            return evicted;
        }
        return null;
    }

    /** Forgets a block's file; returns it for the caller to release, or null. */
    SsdFile remove(final SsdTier.Entry entry)
    {
        return files.remove(entry);
    }

    /** Forgets every file; returns them for the caller to release. */
    List<SsdFile> clear()
    {
        final List<SsdFile> open = new ArrayList<>(files.values());
        files.clear();
        return open;
    }

    int size()
    {
        return files.size();
    }
}
