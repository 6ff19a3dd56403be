package dev.offcache.range.store;

import java.io.IOException;

/**
 * A stored block's bytes failed the store's check against the checksum recorded when the block was stored: the store
 * has dropped the block, so a reader that gets this fetches the bytes again (from the origin) instead of using or
 * sending any of them.
 */
public final class DamagedBlockException extends IOException
{
    private static final long serialVersionUID = 1L;

    /**
     * A damaged block.
     *
     * @param message which block, and where it failed.
     */
    public DamagedBlockException(final String message)
    {
        super(message);
    }
}
