package dev.offcache.range.engine;

import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import dev.offcache.range.testing.EngineFixture;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Bad input gets a clear exception naming what was wrong; nothing is fetched or cached, nothing else disturbed.
 */
class BadInputTest
{
    private static final int BLOCK = 4096;

    @Test
    void badReadsAreRefusedAndDisturbNothing()
    {
        try (EngineFixture f = new EngineFixture(BLOCK, 64L * BLOCK, (b) -> b))
        {
            final byte[] expected = f.object("ok", 2 * BLOCK, 1);
            final UnsafeBuffer buffer = new UnsafeBuffer(new byte[3 * BLOCK]);
            f.cache.size("ok");

            refused("negative position", () -> f.cache.read("ok", -1, buffer, 0, 10));
            refused("negative length", () -> f.cache.read("ok", 0, buffer, 0, -1));
            refused("past the end", () -> f.cache.read("ok", BLOCK, buffer, 0, BLOCK + 1));
            refused("past the end", () -> f.cache.read("ok", 2 * BLOCK + 1, buffer, 0, 0));
            refused("outside its buffer", () -> f.cache.read("ok", 0, buffer, 2 * BLOCK, BLOCK + 1));
            refused("null", () -> f.cache.read("ok", 0, (MutableDirectBuffer) null, 0, 1));
            refused("empty", () -> f.cache.read("", 0, buffer, 0, 1));
            refused("'..'", () -> f.cache.read("a/../ok", 0, buffer, 0, 1));
            refused("'..'", () -> f.cache.read("..", 0, buffer, 0, 1));
            refused("start with '/'", () -> f.cache.read("/ok", 0, buffer, 0, 1));
            refused("null", () -> f.cache.read(null, 0, buffer, 0, 1));
            refused("negative length", () -> f.cache.readTail("ok", buffer, 0, -1));

            assertEquals(0, f.origin.gets());
            assertEquals(1, f.origin.heads());
            assertEquals(0, f.store.sizeBytes());
            assertArrayEquals(new byte[3 * BLOCK], buffer.byteArray());

            f.cache.read("ok", 0, buffer, 0, 2 * BLOCK);
            assertArrayEquals(expected, java.util.Arrays.copyOf(buffer.byteArray(), 2 * BLOCK));
            f.cache.read("ok", 2 * BLOCK, buffer, 0, 0);
        }
    }

    @Test
    void asyncBadInputFailsTheFutureInsteadOfThrowing()
    {
        try (EngineFixture f = new EngineFixture(BLOCK, 64L * BLOCK, (b) -> b))
        {
            f.object("ok", BLOCK, 1);
            final UnsafeBuffer buffer = new UnsafeBuffer(new byte[BLOCK]);
            assertTrue(f.cache.readAsync("ok", 0, buffer, 0, BLOCK + 1, false).isCompletedExceptionally() ||
                f.cache.readAsync("ok", 0, buffer, 0, BLOCK + 1, false).handle((v, t) -> t != null).join());
            assertTrue(f.cache.readAsync("../x", 0, buffer, 0, 1, false).isCompletedExceptionally());
            assertTrue(f.cache.prefetch("", java.util.List.of()).isCompletedExceptionally());
            assertEquals(0, f.origin.gets());
        }
    }

    private static void refused(final String expectedText, final Executable call)
    {
        final IllegalArgumentException error = assertThrows(IllegalArgumentException.class, call);
        assertTrue(error.getMessage().contains(expectedText), "'" + error.getMessage() + "' should say " +
            expectedText);
    }
}
