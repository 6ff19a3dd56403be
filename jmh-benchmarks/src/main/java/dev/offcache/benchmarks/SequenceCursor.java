package dev.offcache.benchmarks;

import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * A benchmark thread's cursor into a sequence of {@value #SEQUENCE} keys that the benchmark draws once, in its
 * trial set-up, and every thread then walks round: each thread starts at a place of its own, so two threads are not
 * in step on the same keys. JMH makes one per thread; a benchmark method takes it (or a subclass that adds the
 * thread's own buffers) as a parameter.
 */
@State(Scope.Thread)
public class SequenceCursor
{
    /** The sequence's length: a power of two, so the cursor wraps with a mask. */
    public static final int SEQUENCE = 1 << 16;

    private int next;

    /**
     * Starts at a per-thread position.
     */
    @Setup(Level.Trial)
    public void start()
    {
        next = (int) (Thread.currentThread().getId() * 7919) & (SEQUENCE - 1);
    }

    /**
     * Moves on one key.
     *
     * @return the index of this thread's next key in the sequence.
     */
    public int advance()
    {
        final int i = next;
        next = (i + 1) & (SEQUENCE - 1);
        return i;
    }
}
