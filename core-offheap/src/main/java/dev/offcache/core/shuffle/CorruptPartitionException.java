package dev.offcache.core.shuffle;

import java.nio.file.Path;

/**
 * Thrown when a committed partition file fails a check: too short for its footer, bad magic or version, a footer
 * whose own checksum fails, a length that disagrees with the file size, or data whose CRC32C disagrees with the
 * footer. The message names the file and the check that failed. The partition must not be used; the reader's
 * recovery is to re-materialise it.
 */
public final class CorruptPartitionException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    private final transient Path path;

    /**
     * Describes a corrupt partition file.
     *
     * @param path   of the corrupt file.
     * @param reason which check failed, with the values seen.
     */
    public CorruptPartitionException(final Path path, final String reason)
    {
        super("corrupt shuffle partition file " + path + ": " + reason);
        this.path = path;
    }

    /**
     * Returns the corrupt file.
     *
     * @return the corrupt file.
     */
    public Path path()
    {
        return path;
    }
}
