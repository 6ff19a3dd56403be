package dev.offcache.server.metrics;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.prometheus.metrics.model.snapshots.ClassicHistogramBuckets;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.InfoSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import org.HdrHistogram.AbstractHistogram;
import org.HdrHistogram.HistogramIterationValue;

/**
 * One scrape's metric families, collected from the counters the hot paths update (LongAdders, Agrona counters,
 * HdrHistograms) and handed to the Prometheus client as snapshots: the hot paths never touch the client, so they
 * stay free of its locks and allocations, and the client writes the text (HELP, TYPE, escaping, suffixes).
 * A family is declared by its first sample, which carries the help text; later samples add label sets.
 * Not thread-safe: one scrape builds one instance.
 */
public final class MetricFamilies
{
    /** Latency bucket bounds in seconds, shared by every latency histogram so they aggregate across servers. */
    static final double[] LATENCY_BOUNDS_SECONDS = {
        0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60,
        Double.POSITIVE_INFINITY};

    private final Map<String, Family> families = new LinkedHashMap<>();

    private enum Type
    {
        COUNTER, GAUGE
    }

    /** A counter or gauge family under construction, or (type null) a finished snapshot. */
    private record Family(Type type, String help, MetricSnapshot fixed, List<Object> points)
    {
    }

    /**
     * A counter sample.
     *
     * @param name   the family's name, with its {@code _total} suffix.
     * @param help   one line of help (required on the family's first sample; ignored after).
     * @param value  the value.
     * @param labels label names and values, alternating.
     * @return this.
     */
    public MetricFamilies counter(final String name, final String help, final double value, final String... labels)
    {
        if (!name.endsWith("_total"))
        {
            throw new IllegalArgumentException("a counter's name ends with _total: " + name);
        }
        family(name.substring(0, name.length() - "_total".length()), Type.COUNTER, help).points.add(
            CounterSnapshot.CounterDataPointSnapshot.builder().value(value).labels(Labels.of(labels)).build());
        return this;
    }

    /**
     * A gauge sample.
     *
     * @param name   the family's name.
     * @param help   one line of help (required on the family's first sample).
     * @param value  the value.
     * @param labels label names and values, alternating.
     * @return this.
     */
    public MetricFamilies gauge(final String name, final String help, final double value, final String... labels)
    {
        family(name, Type.GAUGE, help).points.add(
            GaugeSnapshot.GaugeDataPointSnapshot.builder().value(value).labels(Labels.of(labels)).build());
        return this;
    }

    /**
     * A latency histogram from an HdrHistogram: cumulative buckets at {@link #LATENCY_BOUNDS_SECONDS}, so series
     * from many servers add up (which quantiles of summaries cannot).
     *
     * @param name           the family's name, ending with {@code _seconds}.
     * @param help           one line of help.
     * @param recorded       a copy of the histogram (the caller's, read once).
     * @param unitsPerSecond the histogram's unit, e.g. {@code 1e6} for microseconds.
     * @return this.
     */
    public MetricFamilies latency(
        final String name, final String help, final AbstractHistogram recorded, final double unitsPerSecond)
    {
        final long[] counts = new long[LATENCY_BOUNDS_SECONDS.length];
        double sum = 0;
        for (final HistogramIterationValue value : recorded.recordedValues())
        {
            final double seconds = recorded.highestEquivalentValue(value.getValueIteratedTo()) / unitsPerSecond;
            int bucket = 0;
            while (seconds > LATENCY_BOUNDS_SECONDS[bucket])
            {
                bucket++;
            }
            counts[bucket] += value.getCountAtValueIteratedTo();
            sum += recorded.medianEquivalentValue(value.getValueIteratedTo()) / unitsPerSecond *
                value.getCountAtValueIteratedTo();
        }
        return fixed(name, HistogramSnapshot.builder().name(name).help(help)
            .dataPoint(HistogramSnapshot.HistogramDataPointSnapshot.builder()
                .classicHistogramBuckets(ClassicHistogramBuckets.of(LATENCY_BOUNDS_SECONDS, counts))
                .sum(sum)
                .build())
            .build());
    }

    /**
     * An info family: one sample of value 1 whose labels carry the facts, written as {@code NAME_info}.
     *
     * @param name   the name without {@code _info}, e.g. {@code offcache_build}.
     * @param help   one line of help.
     * @param labels label names and values, alternating.
     * @return this.
     */
    public MetricFamilies info(final String name, final String help, final String... labels)
    {
        return fixed(name, InfoSnapshot.builder().name(name).help(help)
            .dataPoint(InfoSnapshot.InfoDataPointSnapshot.builder().labels(Labels.of(labels)).build())
            .build());
    }

    private MetricFamilies fixed(final String name, final MetricSnapshot snapshot)
    {
        if (families.containsKey(name))
        {
            throw new IllegalArgumentException("family declared twice: " + name);
        }
        families.put(name, new Family(null, snapshot.getMetadata().getHelp(), snapshot, List.of()));
        return this;
    }

    /**
     * The families as the Prometheus client's snapshots.
     *
     * @return the snapshots, in declaration order.
     */
    public MetricSnapshots snapshots()
    {
        final MetricSnapshots.Builder out = MetricSnapshots.builder();
        for (final Map.Entry<String, Family> entry : families.entrySet())
        {
            final Family family = entry.getValue();
            if (null == family.type)
            {
                out.metricSnapshot(family.fixed);
            }
            else if (family.type == Type.COUNTER)
            {
                final CounterSnapshot.Builder counter = CounterSnapshot.builder().name(entry.getKey())
                    .help(family.help);
                family.points.forEach((point) -> counter.dataPoint((CounterSnapshot.CounterDataPointSnapshot) point));
                out.metricSnapshot(counter.build());
            }
            else
            {
                final GaugeSnapshot.Builder gauge = GaugeSnapshot.builder().name(entry.getKey()).help(family.help);
                family.points.forEach((point) -> gauge.dataPoint((GaugeSnapshot.GaugeDataPointSnapshot) point));
                out.metricSnapshot(gauge.build());
            }
        }
        return out.build();
    }

    private Family family(final String name, final Type type, final String help)
    {
        final Family existing = families.get(name);
        if (null != existing)
        {
            if (existing.type != type)
            {
                throw new IllegalArgumentException(name + " is already a " + existing.type);
            }
            return existing;
        }
        if (null == help || help.isEmpty())
        {
            throw new IllegalArgumentException("the first sample of " + name + " needs its help text");
        }
        final Family created = new Family(type, help, null, new ArrayList<>());
        families.put(name, created);
        return created;
    }
}
