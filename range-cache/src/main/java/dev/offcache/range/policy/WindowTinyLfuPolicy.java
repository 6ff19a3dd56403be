package dev.offcache.range.policy;

/**
 * W-TinyLFU over {@code long} keys: a small LRU admission window in front of a segmented LRU main space, with a
 * {@link FrequencySketch} deciding who may enter the main space. Recency wins in the window (bursts), frequency
 * wins at the gate to the main space (scans and one-hit wonders do not flush the hot set).
 *
 * <ul>
 *   <li>window: {@code max(1, 1%)} of the capacity at first, LRU; every newcomer enters here.</li>
 *   <li>main: the rest, split into <b>probation</b> (about 20%) and <b>protected</b> (80%). A window entry pushed out
 *   of the window becomes a probation candidate; a probation entry that is hit again moves to protected; protected
 *   overflow is demoted back to the probation tail.</li>
 *   <li>eviction: when room is needed and the window is full, the window's LRU entry (the candidate) competes with
 *   probation's LRU entry (the victim): the candidate stays only if the sketch estimates it strictly more frequent;
 *   the loser is evicted.</li>
 *   <li>low-priority (prefetch) entries skip the window and enter at the head of probation, so they are the next
 *   victim unless a read promotes them; {@link #admits(long)} lets a store refuse them when the cache is full.</li>
 * </ul>
 *
 * <p>The window starts at 1% and, as in Caffeine, a hill climber resizes it once per sample ({@code 10 x capacity}
 * accesses): it keeps stepping in the direction that raised the hit ratio and turns back when it fell, so
 * recency-heavy workloads get a larger window and frequency-heavy ones a smaller one. Differences from Caffeine:
 * entries move between window and main lazily, there is no doorkeeper Bloom filter and no random admission of warm
 * candidates. Single-threaded; allocates nothing after construction.
 */
public final class WindowTinyLfuPolicy extends QueuedPolicy
{
    private static final int WINDOW = 0;
    private static final int PROBATION = 1;
    private static final int PROTECTED = 2;

    // Hill climbing after Caffeine: a step of 6.25% of the capacity, decaying by 2% per sample unless the hit
    // ratio moved by 5 points or more, which restarts it.
    private static final double STEP_FRACTION = 0.0625;
    private static final double STEP_DECAY = 0.98;
    private static final double RESTART_THRESHOLD = 0.05;

    private final FrequencySketch sketch;
    private final boolean adaptive;
    private final int sampleSize;
    private int maxWindow;
    private int maxProtected;
    private int hitsInSample;
    private int missesInSample;
    private double previousHitRatio;
    private double stepSize;
    private long candidatesAdmitted;
    private long candidatesRejected;

    /**
     * Creates a policy with a 1% window and an 80% protected segment.
     *
     * @param capacity the maximum number of keys, at least 1.
     */
    public WindowTinyLfuPolicy(final int capacity)
    {
        this(capacity, 0.01, true);
    }

    /**
     * Creates a policy.
     *
     * @param capacity       the maximum number of keys, at least 1.
     * @param windowFraction the initial share of the capacity given to the admission window, in (0, 1).
     * @param adaptive       whether hill climbing resizes the window to follow the hit ratio (as Caffeine does);
     *                       false keeps the window fixed.
     */
    public WindowTinyLfuPolicy(final int capacity, final double windowFraction, final boolean adaptive)
    {
        super(checkWindow(capacity, windowFraction), 3);
        sketch = new FrequencySketch(capacity);
        this.adaptive = adaptive;
        sampleSize = (int) Math.min(Integer.MAX_VALUE, 10L * capacity);
        stepSize = -STEP_FRACTION * capacity;
        setWindow(Math.max(1, (int) (capacity * windowFraction)));
    }

    /** Checks the window share before the queues are made; returns the capacity. */
    private static int checkWindow(final int capacity, final double windowFraction)
    {
        if (!(windowFraction > 0 && windowFraction < 1))
        {
            throw new IllegalArgumentException("windowFraction must be in (0, 1): " + windowFraction);
        }
        return capacity;
    }

    /**
     * {@inheritDoc}
     */
    public void recordAccess(final long key)
    {
        sketch.increment(key);
        final int node = queues.nodeOf(key);
        if (adaptive)
        {
            sample(node != KeyQueues.NONE);
        }
        if (node == KeyQueues.NONE)
        {
            return;
        }
        switch (queues.queueOf(node))
        {
            case WINDOW:
                queues.moveToTail(node, WINDOW);
                break;
            case PROBATION:
                queues.moveToTail(node, PROTECTED);
                demoteProtectedOverflow();
                break;
            default:
                queues.moveToTail(node, PROTECTED);
                break;
        }
    }

    /**
     * {@inheritDoc}
     */
    public boolean admits(final long key)
    {
        if (queues.size() < queues.capacity())
        {
            return true;
        }
        final int victim = mainVictim(KeyQueues.NONE);
        return victim == KeyQueues.NONE || sketch.frequency(key) > sketch.frequency(queues.key(victim));
    }

    /**
     * {@inheritDoc}
     */
    public long evict()
    {
        if (queues.size() == 0)
        {
            return NO_KEY;
        }
        final int windowSize = queues.size(WINDOW);
        if (windowSize > 0 && windowSize >= maxWindow)
        {
            final int candidate = queues.head(WINDOW);
            queues.moveToTail(candidate, PROBATION);
            final int victim = mainVictim(candidate);
            if (victim == KeyQueues.NONE)
            {
                candidatesRejected++;
                return remove(candidate);
            }
            final long candidateKey = queues.key(candidate);
            final long victimKey = queues.key(victim);
            if (sketch.frequency(candidateKey) > sketch.frequency(victimKey))
            {
                candidatesAdmitted++;
                return remove(victim);
            }
            candidatesRejected++;
            return remove(candidate);
        }
        int victim = mainVictim(KeyQueues.NONE);
        if (victim == KeyQueues.NONE)
        {
            victim = queues.head(WINDOW);
        }
        return remove(victim);
    }

    /**
     * {@inheritDoc}
     */
    public void add(final long key, final boolean lowPriority)
    {
        if (lowPriority)
        {
            queues.insert(key, PROBATION, true);
            return;
        }
        queues.insert(key, WINDOW, false);
        // While the cache fills, window overflow moves to probation without a contest: there is room for both.
        while (queues.size(WINDOW) > maxWindow)
        {
            queues.moveToTail(queues.head(WINDOW), PROBATION);
        }
    }

    /**
     * The frequency sketch, for diagnostics and tests.
     *
     * @return the sketch this policy admits by.
     */
    public FrequencySketch sketch()
    {
        return sketch;
    }

    /**
     * The size of the admission window now (hill climbing moves it).
     *
     * @return the maximum number of window entries.
     */
    public int maxWindow()
    {
        return maxWindow;
    }

    /**
     * The size of the protected segment.
     *
     * @return the maximum number of protected entries.
     */
    public int maxProtected()
    {
        return maxProtected;
    }

    /**
     * Which segment holds a key, for tests and diagnostics.
     *
     * @param key a key.
     * @return the segment, or {@code null} if the key is not resident.
     */
    public Segment segmentOf(final long key)
    {
        final int node = queues.nodeOf(key);
        if (node == KeyQueues.NONE)
        {
            return null;
        }
        switch (queues.queueOf(node))
        {
            case WINDOW:
                return Segment.WINDOW;
            case PROBATION:
                return Segment.PROBATION;
            default:
                return Segment.PROTECTED;
        }
    }

    /**
     * How many window candidates won their contest and entered the main space.
     *
     * @return admitted candidates.
     */
    public long candidatesAdmitted()
    {
        return candidatesAdmitted;
    }

    /**
     * How many window candidates lost their contest and were evicted.
     *
     * @return rejected candidates.
     */
    public long candidatesRejected()
    {
        return candidatesRejected;
    }

    private long remove(final int node)
    {
        final long key = queues.key(node);
        queues.delete(node);
        return key;
    }

    private int mainVictim(final int exclude)
    {
        int victim = queues.head(PROBATION);
        if (victim != KeyQueues.NONE && victim == exclude)
        {
            victim = queues.after(victim);
        }
        if (victim == KeyQueues.NONE)
        {
            victim = queues.head(PROTECTED);
        }
        return victim;
    }

    private void sample(final boolean hit)
    {
        if (hit)
        {
            hitsInSample++;
        }
        else
        {
            missesInSample++;
        }
        final int requests = hitsInSample + missesInSample;
        if (requests < sampleSize)
        {
            return;
        }
        final double hitRatio = (double) hitsInSample / requests;
        final double change = hitRatio - previousHitRatio;
        final double amount = change >= 0 ? stepSize : -stepSize;
        stepSize = Math.abs(change) >= RESTART_THRESHOLD ?
            STEP_FRACTION * queues.capacity() * (amount >= 0 ? 1 : -1) : STEP_DECAY * amount;
        previousHitRatio = hitRatio;
        hitsInSample = 0;
        missesInSample = 0;
        final int target = (int) Math.max(1, Math.min(queues.capacity() - 1, Math.round(maxWindow + amount)));
        if (target != maxWindow && queues.capacity() > 1)
        {
            // Entries move lazily: a grown window fills with newcomers while evict() takes main victims; a shrunk
            // window overflows into probation on the next add or contest.
            setWindow(target);
            demoteProtectedOverflow();
        }
    }

    private void setWindow(final int window)
    {
        maxWindow = window;
        maxProtected = (int) ((queues.capacity() - window) * 0.8);
    }

    private void demoteProtectedOverflow()
    {
        while (queues.size(PROTECTED) > maxProtected)
        {
            queues.moveToTail(queues.head(PROTECTED), PROBATION);
        }
    }

    /**
     * The segments of a W-TinyLFU cache.
     */
    public enum Segment
    {
        /** The LRU admission window. */
        WINDOW,
        /** The main space's probation segment. */
        PROBATION,
        /** The main space's protected segment. */
        PROTECTED
    }
}
