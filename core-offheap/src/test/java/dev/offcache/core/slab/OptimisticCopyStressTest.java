package dev.offcache.core.slab;

import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.offcache.testkit.jvm.ChildJvm;

/**
 * {@link BlockRef#tryCopy} under churn ({@link OptimisticCopyChurn}): readers copy whole 64 KiB slots without a
 * reference while a writer evicts and re-writes them, then slabs are closed under copying readers. A copy that
 * returns true always holds its block's bytes (every long checked); conflicts, and conflicts whose bytes really were
 * another block's, did happen (so the race was exercised, and validation is what kept those bytes from the caller);
 * no mapping leaks. The same run in a child JVM with {@code -Dagrona.disable.bounds.checks=true} must neither crash
 * nor see a wrong byte: the copy's safety does not rest on Agrona's bounds checks.
 */
class OptimisticCopyStressTest
{
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void copiesThatValidateHoldTheirBlocksBytesWhileSlotsAreReused() throws Exception
    {
        final OptimisticCopyChurn.Result result =
            OptimisticCopyChurn.run(TimeUnit.MILLISECONDS.toNanos(1_500), 2, 100);
        assertTrue(result.validCopies() > 1_000, "validated copies: " + result);
        assertTrue(result.conflicts() > 0, "no copy ever overlapped an eviction: " + result);
        assertTrue(result.tornConflicts() > 0, "no copy ever saw a re-used slot's bytes: " + result);
    }

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void withoutAgronaBoundsChecksNothingCrashesAndNoWrongByteIsReturned() throws Exception
    {
        final ChildJvm.Exit exit = ChildJvm.runToExit(List.of("-Xmx64m", "-Dagrona.disable.bounds.checks=true"),
            OptimisticCopyChurn.class, 60_000, "1000", "2", "50");
        assertEquals(0, exit.code(), "child JVM failed: " + exit.lines());
        final String last = exit.lines().isEmpty() ? "" : exit.lines().get(exit.lines().size() - 1);
        assertTrue(last.startsWith("ok "), "child JVM output: " + exit.lines());
        final String[] counts = last.split(" ");
        assertTrue(Long.parseLong(counts[1]) > 100, "validated copies in the child: " + last);
    }
}
