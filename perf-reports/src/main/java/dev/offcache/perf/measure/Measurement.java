package dev.offcache.perf.measure;

import dev.offcache.perf.jmh.Metric;
import dev.offcache.perf.pairing.PairingConvention;

/**
 * One measured value of a measurement file: one implementation on one case and metric (for example nginx's
 * throughput on "RAM tier, 64 KiB"), with its interval when the producer gave one or measured repeats.
 *
 * @param caseName       what was measured, as the producer names it ({@code "RAM tier, 64 KiB"}).
 * @param metric         which quantity ({@code "throughput"}, {@code "p99 latency"}, {@code "miss ratio"}).
 * @param impl           the implementation: {@code offcache} or {@code offcache-<variant>} is ours, anything else
 *                       a baseline of that name (the rule of the JMH {@code impl} parameter).
 * @param higherIsBetter whether a higher value is better.
 * @param value          the value and its interval in the measurement's unit: the mean of the repeats with their
 *                       minimum and maximum, or the value with the interval the producer gave, or no interval
 *                       (NaN bounds).
 * @param samples        how many repeats the value is the mean of (1 for a single value).
 */
public record Measurement(String caseName, String metric, String impl, boolean higherIsBetter, Metric value,
    int samples)
{
    /**
     * Whether this is offcache's value.
     *
     * @return true for ours.
     */
    public boolean ours()
    {
        return PairingConvention.isOursImpl(impl);
    }

    /**
     * The unit.
     *
     * @return for example {@code req/s}.
     */
    public String unit()
    {
        return value.unit();
    }

    /**
     * Identity inside a suite: case, metric and implementation. Two files' measurements with the same key (and
     * suite) measured the same thing.
     *
     * @return the key.
     */
    public String key()
    {
        return caseName + " · " + metric + " · " + impl;
    }
}
