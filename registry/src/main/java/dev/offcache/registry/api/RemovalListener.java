package dev.offcache.registry.api;

import java.util.List;

import dev.offcache.registry.state.RemovedEntry;

/**
 * Receives every entry the registry removed — explicit invalidations, executor loss, session removal, eviction,
 * validate-on-read — once the removal is durable, so their stages can be unpinned and deleted. Called on the
 * registry's writer once per batch: hand slow work (file deletion) to another thread.
 */
@FunctionalInterface
public interface RemovalListener
{
    /**
     * A listener that does nothing.
     */
    RemovalListener NONE = removed ->
    {
    };

    /**
     * Entries removed in one batch, in the order they were removed.
     *
     * @param removed the removed entries; never empty.
     */
    void onRemoved(List<RemovedEntry> removed);
}
