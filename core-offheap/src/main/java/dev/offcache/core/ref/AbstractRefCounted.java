package dev.offcache.core.ref;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The reference count of a {@link RefCounted}, written once: starts at one (the creator's reference), counts up with
 * {@link #tryRetain()} while above zero, and calls {@link #onLastRelease()} exactly once, on the thread that drops the
 * last reference. The count lives in a field of the object itself (a {@link VarHandle}, no extra object), because
 * slab slots are retained and released on every cache hit.
 */
public abstract class AbstractRefCounted implements RefCounted
{
    private static final VarHandle REF_COUNT;

    static
    {
        try
        {
            REF_COUNT = MethodHandles.lookup().findVarHandle(AbstractRefCounted.class, "refCount", int.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private volatile int refCount = 1;

    /**
     * {@inheritDoc}
     */
    @Override
    public final boolean tryRetain()
    {
        while (true)
        {
            final int count = refCount;
            if (count <= 0)
            {
                return false;
            }
            if (count == Integer.MAX_VALUE)
            {
                throw new IllegalStateException("reference count overflow on " + this);
            }
            if (REF_COUNT.compareAndSet(this, count, count + 1))
            {
                return true;
            }
        }
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public final void release()
    {
        while (true)
        {
            final int count = refCount;
            if (count <= 0)
            {
                throw new IllegalStateException(this + " was already released (released more often than retained)");
            }
            if (REF_COUNT.compareAndSet(this, count, count - 1))
            {
                if (count == 1)
                {
                    onLastRelease();
                }
                return;
            }
        }
    }

    /**
     * Returns the references held now; 0 once the last is gone.
     *
     * @return the count.
     */
    public final int refCount()
    {
        return Math.max(0, refCount);
    }

    /**
     * Returns whether the last reference has been released.
     *
     * @return true once gone.
     */
    public final boolean isReleased()
    {
        return refCount <= 0;
    }

    /**
     * Frees what the references guarded. Called once, by the thread whose {@link #release()} dropped the last one;
     * it must not throw.
     */
    protected abstract void onLastRelease();
}
