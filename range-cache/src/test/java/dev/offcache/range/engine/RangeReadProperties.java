package dev.offcache.range.engine;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import org.agrona.concurrent.UnsafeBuffer;

import dev.offcache.range.testing.EngineFixture;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Random objects and random reads, cold and warm, single and vectored, with and without a store, under many block
 * sizes, coalescing caps and gaps read through: every read returns exactly the origin's bytes.
 */
class RangeReadProperties
{
    @Property(tries = 40)
    void readsReturnTheOriginBytes(
        @ForAll("blockSizes") final int blockSize,
        @ForAll @IntRange(min = 1, max = 4) final int capBlocks,
        @ForAll @IntRange(min = 0, max = 4) final int gapBlocks,
        @ForAll @IntRange(min = 0, max = 200_000) final int objectSize,
        @ForAll @LongRange(min = 0, max = 1000) final long seed,
        @ForAll("fractions") final List<double[]> reads,
        @ForAll final boolean withStore)
    {
        try (EngineFixture fixture = new EngineFixture(blockSize, withStore ? 64L * blockSize : 0,
            (b) -> b.maxCoalescedGetBytes(capBlocks * blockSize)
                .coalesceGapBytes(Math.min(gapBlocks, capBlocks) * blockSize).streamWindows(3, 2)))
        {
            final byte[] expected = fixture.object("data/obj.bin", objectSize, seed);
            for (int pass = 0; pass < 2; pass++)
            {
                for (final double[] read : reads)
                {
                    final long position = (long) (read[0] * objectSize);
                    final int length = (int) (read[1] * (objectSize - position));
                    final byte[] actual = fixture.read("data/obj.bin", position, length);
                    assertArrayEquals(Arrays.copyOfRange(expected, (int) position, (int) position + length), actual,
                        "read " + position + "+" + length + " of " + objectSize + " with blocks of " + blockSize);
                }
            }
            final int tail = Math.min(objectSize, blockSize + 7);
            final UnsafeBuffer tailBuffer = new UnsafeBuffer(new byte[tail + 3]);
            assertEquals(tail, fixture.cache.readTail("data/obj.bin", tailBuffer, 3, tail));
            assertArrayEquals(Arrays.copyOfRange(expected, objectSize - tail, objectSize),
                Arrays.copyOfRange(tailBuffer.byteArray(), 3, 3 + tail));

            final List<RangeRequest> ranges = new ArrayList<>();
            for (final double[] read : reads)
            {
                final long position = (long) (read[0] * objectSize);
                final int length = (int) (read[1] * (objectSize - position));
                ranges.add(new RangeRequest(position, length, new UnsafeBuffer(new byte[length]), 0));
            }
            fixture.cache.readVectored("data/obj.bin", ranges);
            for (final RangeRequest range : ranges)
            {
                assertArrayEquals(
                    Arrays.copyOfRange(expected, (int) range.position(), (int) range.position() + range.length()),
                    range.destination().byteArray());
            }
        }
    }

    @Provide
    Arbitrary<Integer> blockSizes()
    {
        return Arbitraries.of(4096, 8192, 16384, 65536);
    }

    @Provide
    Arbitrary<List<double[]>> fractions()
    {
        final Arbitrary<Double> fraction = Arbitraries.doubles().between(0, 1);
        return Combinators.combine(fraction, fraction).as((a, b) -> new double[]{a, b}).list().ofMinSize(1)
            .ofMaxSize(6);
    }
}
