package dev.offcache.range.l2.shard;

import java.util.Arrays;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Measures how rendezvous hashing spreads 100 000 realistic object keys over 3, 4 and 5 servers, and what moves
 * when one server is removed or added: removal moves exactly the removed server's keys, addition moves only keys
 * the new server now owns, about {@code 1/(N+1)} of them. The figures are printed for docs/l2-sharding.md.
 */
class RendezvousSpreadTest
{
    private static final int KEYS = 100_000;
    /** Each server's share must be within this fraction of the fair share (about 5 standard deviations). */
    private static final double TOLERANCE = 0.03;

    @ParameterizedTest
    @ValueSource(ints = {3, 4, 5})
    void keysSpreadEvenly(final int servers)
    {
        final long[] seeds = seeds(servers);
        final int[] counts = new int[servers];
        for (int k = 0; k < KEYS; k++)
        {
            counts[RendezvousHash.owner(seeds, RendezvousHash.hash(key(k)))]++;
        }
        final double fair = (double) KEYS / servers;
        final int max = Arrays.stream(counts).max().orElseThrow();
        final int min = Arrays.stream(counts).min().orElseThrow();
        System.out.printf("spread over %d servers: counts %s, fair %.0f, max/min %.4f, worst deviation %.2f%%%n",
            servers, Arrays.toString(counts), fair, (double) max / min,
            100 * Math.max(max - fair, fair - min) / fair);
        for (int i = 0; i < servers; i++)
        {
            assertTrue(Math.abs(counts[i] - fair) <= TOLERANCE * fair,
                "server " + i + " has " + counts[i] + " keys, fair share " + fair);
        }
        assertEquals(KEYS, Arrays.stream(counts).sum());
    }

    @ParameterizedTest
    @ValueSource(ints = {3, 4, 5})
    void removingAServerMovesExactlyItsKeys(final int servers)
    {
        final long[] seeds = seeds(servers);
        for (int removed = 0; removed < servers; removed++)
        {
            final long[] rest = new long[servers - 1];
            for (int i = 0, j = 0; i < servers; i++)
            {
                if (i != removed)
                {
                    rest[j++] = seeds[i];
                }
            }
            int moved = 0;
            int itsKeys = 0;
            for (int k = 0; k < KEYS; k++)
            {
                final long hash = RendezvousHash.hash(key(k));
                final long before = seeds[RendezvousHash.owner(seeds, hash)];
                final long after = rest[RendezvousHash.owner(rest, hash)];
                if (before == seeds[removed])
                {
                    itsKeys++;
                }
                if (before != after)
                {
                    moved++;
                    assertEquals(seeds[removed], before, "key " + k + " moved though its owner stayed");
                }
            }
            assertEquals(itsKeys, moved, "every key of the removed server moved, and nothing else");
            if (removed == 0)
            {
                System.out.printf("remove 1 of %d servers: %d of %d keys moved (%.2f%%, its share)%n",
                    servers, moved, KEYS, 100.0 * moved / KEYS);
            }
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {3, 4, 5})
    void addingAServerMovesOnlyTheKeysItTakes(final int servers)
    {
        final long[] seeds = seeds(servers);
        final long[] more = Arrays.copyOf(seeds, servers + 1);
        more[servers] = RendezvousHash.hash("http://10.0.9.99:8080");
        int moved = 0;
        for (int k = 0; k < KEYS; k++)
        {
            final long hash = RendezvousHash.hash(key(k));
            final int before = RendezvousHash.owner(seeds, hash);
            final int after = RendezvousHash.owner(more, hash);
            if (before != after)
            {
                moved++;
                assertEquals(servers, after, "a key moved to an old server");
            }
        }
        final double fair = (double) KEYS / (servers + 1);
        System.out.printf("add a server to %d: %d of %d keys moved (%.2f%%, fair %.2f%%)%n",
            servers, moved, KEYS, 100.0 * moved / KEYS, 100.0 / (servers + 1));
        assertTrue(Math.abs(moved - fair) <= TOLERANCE * fair, moved + " keys moved, fair share " + fair);
    }

    static long[] seeds(final int servers)
    {
        final long[] seeds = new long[servers];
        for (int i = 0; i < servers; i++)
        {
            seeds[i] = RendezvousHash.hash(ShardedL2Context.serverId(java.net.URI.create(
                "http://10.0.0." + (i + 1) + ":8080")));
        }
        return seeds;
    }

    static String key(final int k)
    {
        return "lake/events/date=2024-" + (1 + k % 12) + "-" + (1 + k % 28) + "/part-" + k + ".parquet";
    }
}
