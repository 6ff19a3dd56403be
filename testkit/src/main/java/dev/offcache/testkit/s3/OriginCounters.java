package dev.offcache.testkit.s3;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

/**
 * What the S3 origin served, counted at the blob store behind S3Proxy: GETs (object reads, ranged or whole), the
 * bytes those GETs sent, metadata requests (HEAD) and listings. Thread-safe; counts from any number of requests.
 */
public final class OriginCounters
{
    private final AtomicLong gets = new AtomicLong();
    private final AtomicLong bytes = new AtomicLong();
    private final AtomicLong heads = new AtomicLong();
    private final AtomicLong lists = new AtomicLong();
    private final Map<String, AtomicLong> bytesByKey = new ConcurrentHashMap<>();

    void get()
    {
        gets.incrementAndGet();
    }

    void bytes(final String key, final long n)
    {
        bytes.addAndGet(n);
        bytesByKey.computeIfAbsent(key, (k) -> new AtomicLong()).addAndGet(n);
    }

    void head()
    {
        heads.incrementAndGet();
    }

    void list()
    {
        lists.incrementAndGet();
    }

    /**
     * Returns object reads (GET) served.
     *
     * @return object reads (GET) served.
     */
    public long gets()
    {
        return gets.get();
    }

    /**
     * Returns object bytes the blob store returned to GETs (the ranges asked for, cut to the object).
     *
     * @return object bytes the blob store returned to GETs (the ranges asked for, cut to the object).
     */
    public long bytes()
    {
        return bytes.get();
    }

    /**
     * Object bytes GETs returned for the keys a filter accepts ({@code bucket/key}), for "how much of these files
     * was read".
     *
     * @param keys which {@code bucket/key} names count.
     * @return the bytes.
     */
    public long bytes(final Predicate<String> keys)
    {
        long total = 0;
        for (final Map.Entry<String, AtomicLong> entry : bytesByKey.entrySet())
        {
            if (keys.test(entry.getKey()))
            {
                total += entry.getValue().get();
            }
        }
        return total;
    }

    /**
     * Returns metadata requests (HEAD object) served.
     *
     * @return metadata requests (HEAD object) served.
     */
    public long heads()
    {
        return heads.get();
    }

    /**
     * Returns listings served.
     *
     * @return listings served.
     */
    public long lists()
    {
        return lists.get();
    }

    /**
     * Sets every count back to zero.
     */
    public void reset()
    {
        gets.set(0);
        bytes.set(0);
        heads.set(0);
        lists.set(0);
        bytesByKey.clear();
    }

    @Override
    public String toString()
    {
        return "gets=" + gets() + " bytes=" + bytes() + " heads=" + heads() + " lists=" + lists();
    }
}
