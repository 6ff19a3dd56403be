package dev.offcache.core.journal;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Appending to the journal (within a segment) and replaying it allocate nothing per record.
 */
class JournalAllocationTest
{
    private static final int RECORDS = 20_000;
    // Room for the measuring calls themselves; one allocation per record would be hundreds of kilobytes.
    private static final long ALLOWANCE_BYTES = 16 * 1024;
    private static final int ROUNDS = 3;

    @TempDir
    Path dir;

    private long sum;

    @Test
    void appendAndForEachDoNotAllocatePerRecord()
    {
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        assertTrue(threads.isThreadAllocatedMemorySupported());
        threads.setThreadAllocatedMemoryEnabled(true);
        final long threadId = Thread.currentThread().getId();

        try (Journal journal = Journal.open(new Journal.Context().directory(dir).segmentSize(16 * 1024 * 1024)))
        {
            final UnsafeBuffer record = new UnsafeBuffer(new byte[64]);
            final Journal.RecordHandler handler = this::onRecord;
            appendAll(journal, record, 1000);
            journal.forEach(handler);

            // The least of a few rounds: a one-off allocation (a JIT deoptimisation, a lazily loaded class) can land
            // in any round, but a per-record allocation lands in every round.
            long appendAllocated = Long.MAX_VALUE;
            long replayAllocated = Long.MAX_VALUE;
            for (int round = 0; round < ROUNDS; round++)
            {
                long before = threads.getThreadAllocatedBytes(threadId);
                appendAll(journal, record, RECORDS);
                appendAllocated = Math.min(appendAllocated, threads.getThreadAllocatedBytes(threadId) - before);

                sum = 0;
                before = threads.getThreadAllocatedBytes(threadId);
                journal.forEach(handler);
                replayAllocated = Math.min(replayAllocated, threads.getThreadAllocatedBytes(threadId) - before);
            }

            assertEquals(1, journal.segmentCount(), "test setup: no roll during the measurement");
            assertTrue(appendAllocated < ALLOWANCE_BYTES, "append allocated " + appendAllocated + " bytes");
            assertTrue(replayAllocated < ALLOWANCE_BYTES, "forEach allocated " + replayAllocated + " bytes");
            long expected = 0;
            for (int i = 0; i < 1000; i++)
            {
                expected += i;
            }
            for (int round = 0; round < ROUNDS; round++)
            {
                for (int i = 0; i < RECORDS; i++)
                {
                    expected += i;
                }
            }
            assertEquals(expected, sum, "every record replayed");
        }
    }

    private static void appendAll(final Journal journal, final UnsafeBuffer record, final int count)
    {
        for (int i = 0; i < count; i++)
        {
            record.putLong(0, i);
            journal.append(record, 0, record.capacity());
        }
    }

    private void onRecord(final DirectBuffer buffer, final int offset, final int length, final long position)
    {
        sum += buffer.getLong(offset);
    }
}
