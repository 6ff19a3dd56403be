package dev.offcache.core.ref;

/**
 * The one contract of everything in offcache that a reader holds by reference: a slab slot ({@code BlockRef}), a
 * mapped shuffle partition ({@code MappedPartition}), an open SSD block file ({@code BlockFile}) and the transport's
 * opened block ({@code PayloadHandle}).
 *
 * <p>Whoever receives one (from an allocation, an open or a successful {@link #tryRetain()}) holds one reference and
 * calls {@link #release()} exactly once when it stops reading. The memory or descriptor behind it is freed when the
 * last reference goes, never earlier, and once gone it never comes back: {@link #tryRetain()} then answers false, and
 * a release of a reference no one holds throws {@link IllegalStateException}. Neither call allocates or locks.
 */
public interface RefCounted
{
    /**
     * Takes one more reference, for another reader, unless the last one is already gone.
     *
     * @return true if the caller now holds a reference and must {@link #release()} it; false if the thing is gone.
     */
    boolean tryRetain();

    /**
     * Drops one reference; the last one frees what is behind it.
     *
     * @throws IllegalStateException if no reference is held (a double release).
     */
    void release();
}
