package dev.offcache.range.l2.shard;

/**
 * Rendezvous (highest-random-weight) hashing: a key belongs to the server whose weight {@code mix(seed ^ keyHash)}
 * is highest. Removing a server moves exactly the keys it owned (each to its next-highest server); adding one
 * moves only the keys the new server now wins, about {@code 1/(N+1)} of them. Every server computes the same
 * owner from the same server ids, with no shared state.
 *
 * <p>The key hash is FNV-1a over the key's UTF-16 chars followed by a 64-bit finaliser (SplitMix64 / Stafford
 * variant 13); the server seed is the same hash of its id. Nothing here allocates; there is no memory to own.
 */
public final class RendezvousHash
{
    private static final long FNV_OFFSET = 0xcbf29ce484222325L;
    private static final long FNV_PRIME = 0x100000001b3L;

    private RendezvousHash()
    {
    }

    /**
     * A well-mixed 64-bit hash of a key (or a server id), computed once per lookup.
     *
     * @param key the characters to hash; not null.
     * @return the hash.
     */
    public static long hash(final CharSequence key)
    {
        long h = FNV_OFFSET;
        for (int i = 0, n = key.length(); i < n; i++)
        {
            h = (h ^ key.charAt(i)) * FNV_PRIME;
        }
        return mix64(h ^ key.length());
    }

    /**
     * The weight of a key on a server.
     *
     * @param serverSeed {@link #hash(CharSequence)} of the server's id.
     * @param keyHash    {@link #hash(CharSequence)} of the key.
     * @return the weight; the highest wins.
     */
    public static long weight(final long serverSeed, final long keyHash)
    {
        return mix64(serverSeed ^ keyHash);
    }

    /**
     * Whether weight {@code a} of the server with seed {@code seedA} beats weight {@code b} of the server with
     * seed {@code seedB}; ties (2^-64 per pair) are broken by the seed so the owner never depends on list order.
     *
     * @param a     the challenger's weight.
     * @param seedA the challenger's seed.
     * @param b     the incumbent's weight.
     * @param seedB the incumbent's seed.
     * @return true when the challenger wins.
     */
    public static boolean beats(final long a, final long seedA, final long b, final long seedB)
    {
        return a > b || (a == b && seedA > seedB);
    }

    /**
     * The owner of a key among all the given servers (no health check): the index of the highest weight.
     *
     * @param seeds   the servers' seeds.
     * @param keyHash the key's hash.
     * @return the owner's index, or -1 when {@code seeds} is empty.
     */
    public static int owner(final long[] seeds, final long keyHash)
    {
        int best = -1;
        long bestWeight = 0;
        long bestSeed = 0;
        for (int i = 0; i < seeds.length; i++)
        {
            final long weight = weight(seeds[i], keyHash);
            if (best < 0 || beats(weight, seeds[i], bestWeight, bestSeed))
            {
                best = i;
                bestWeight = weight;
                bestSeed = seeds[i];
            }
        }
        return best;
    }

    /**
     * The SplitMix64 finaliser (Stafford variant 13): every input bit affects every output bit.
     *
     * @param z the value.
     * @return the mixed value.
     */
    public static long mix64(final long z)
    {
        long x = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        x = (x ^ (x >>> 27)) * 0x94d049bb133111ebL;
        return x ^ (x >>> 31);
    }
}
