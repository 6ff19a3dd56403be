package dev.offcache.core.journal;

import java.nio.file.Path;

/**
 * Thrown on open when a journal is damaged somewhere other than its tail: a bad record in a segment that is not
 * the last, a bad record followed by valid ones, a damaged segment header or a missing segment. Such damage
 * cannot be a write torn by a crash, so dropping it would silently lose acknowledged records; the journal refuses
 * to open instead. The message and accessors name the segment file and the byte offset in it.
 */
public final class JournalCorruptException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    private final transient Path segment;
    private final long offset;

    /**
     * Describes damage found in a segment file.
     *
     * @param segment file that is damaged.
     * @param offset  of the damage within the file.
     * @param reason  what check failed, with the values seen.
     */
    public JournalCorruptException(final Path segment, final long offset, final String reason)
    {
        super("journal segment " + segment + " is corrupt at offset " + offset + ": " + reason);
        this.segment = segment;
        this.offset = offset;
    }

    /**
     * Returns the damaged segment file.
     *
     * @return the damaged segment file.
     */
    public Path segment()
    {
        return segment;
    }

    /**
     * Returns the byte offset of the damage within the segment file.
     *
     * @return the byte offset of the damage within the segment file.
     */
    public long offset()
    {
        return offset;
    }
}
