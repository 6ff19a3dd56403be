package dev.offcache.registry.journal;

import dev.offcache.registry.state.CacheStateMachine;
import dev.offcache.registry.state.StateChangeListener;

/**
 * Where the registry's accepted changes go before they are acknowledged. The registry thread is the only caller:
 * for each command it calls {@link #beginCommand()}, reports the command's changes through the listener methods,
 * then {@link #endCommand()}; at the end of a Disruptor batch it calls {@link #force()} once (group commit) and
 * only then completes the batch's futures.
 *
 * <p>{@link #IN_MEMORY} keeps nothing (state is lost on restart); the durable implementation journals each command's
 * changes as one record.
 */
public interface ChangeLog extends StateChangeListener, AutoCloseable
{
    /**
     * The in-memory backend: accepts and forgets everything.
     */
    ChangeLog IN_MEMORY = new ChangeLog()
    {
    };

    /**
     * Rebuilds the state machine from what this log holds (a no-op for the in-memory backend). Called once, before
     * the first command.
     *
     * @param stateMachine an empty state machine to restore into.
     */
    default void recover(final CacheStateMachine stateMachine)
    {
    }

    /**
     * Whether {@link #force()} makes changes durable (and costs a device flush), so batching commands pays off.
     *
     * @return false for the in-memory backend.
     */
    default boolean isDurable()
    {
        return false;
    }

    /**
     * The largest encoded command this log can hold in one record; the front refuses larger completions up front
     * rather than failing the journal.
     *
     * @return the limit in bytes.
     */
    default int maxCommandBytes()
    {
        return Integer.MAX_VALUE;
    }

    /**
     * Starts collecting one command's changes.
     */
    default void beginCommand()
    {
    }

    /**
     * Ends the current command: its changes, if any, are appended as one atomic record.
     */
    default void endCommand()
    {
    }

    /**
     * Makes every appended record durable.
     */
    default void force()
    {
    }

    /**
     * Called after a batch is durable and acknowledged: the place to write a snapshot and trim the log.
     *
     * @param stateMachine the current state.
     */
    default void afterBatch(final CacheStateMachine stateMachine)
    {
    }

    /**
     * Releases the log's files and mappings.
     */
    default void close()
    {
    }
}
