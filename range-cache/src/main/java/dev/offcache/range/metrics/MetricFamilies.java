package dev.offcache.range.metrics;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.snapshots.ClassicHistogramBuckets;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.InfoSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import org.HdrHistogram.AbstractHistogram;
import org.HdrHistogram.HistogramIterationValue;

/**
 * One scrape's metric families, collected from the counters the hot paths update (Agrona counters, LongAdders,
 * HdrHistograms) and handed to the Prometheus client as snapshots: the hot paths never touch the client, so they
 * stay free of its locks and allocations, and the client writes the text (HELP, TYPE, escaping, suffixes).
 * A family is declared by its first sample, which carries the help text; later samples add label sets.
 * {@link #labelled} gives a view that adds labels to every sample it takes (the sharded L2 client's
 * {@code server} label), so no component re-parses another's text. Not thread-safe: one scrape builds one
 * instance.
 */
public final class MetricFamilies
{
    /** Latency bucket bounds in seconds, shared by every latency histogram so they aggregate across servers. */
    private static final double[] LATENCY_BOUNDS_SECONDS = {
        0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60,
        Double.POSITIVE_INFINITY};

    /** The text format 0.0.4, without {@code _created} samples; stateless. */
    private static final PrometheusTextFormatWriter TEXT_WRITER = new PrometheusTextFormatWriter(false);
    private static final String[] NO_LABELS = new String[0];

    private final Map<String, Family> families;
    private final String[] labels;

    private enum Type
    {
        COUNTER, GAUGE, HISTOGRAM, INFO
    }

    /** A family under construction: its type, help and data points (the client's point snapshots). */
    private record Family(Type type, String help, List<Object> points)
    {
    }

    /**
     * An empty scrape.
     */
    public MetricFamilies()
    {
        this(new LinkedHashMap<>(), NO_LABELS);
    }

    private MetricFamilies(final Map<String, Family> families, final String[] labels)
    {
        this.families = families;
        this.labels = labels;
    }

    /**
     * A view of this scrape that adds labels to every sample taken through it (and keeps this view's own).
     *
     * @param extra label names and values, alternating.
     * @return the view; its samples land in this scrape.
     */
    public MetricFamilies labelled(final String... extra)
    {
        return new MetricFamilies(families, with(extra));
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
            CounterSnapshot.CounterDataPointSnapshot.builder().value(value).labels(Labels.of(with(labels))).build());
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
            GaugeSnapshot.GaugeDataPointSnapshot.builder().value(value).labels(Labels.of(with(labels))).build());
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
     * @param labels         label names and values, alternating.
     * @return this.
     */
    public MetricFamilies latency(
        final String name,
        final String help,
        final AbstractHistogram recorded,
        final double unitsPerSecond,
        final String... labels)
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
        family(name, Type.HISTOGRAM, help).points.add(HistogramSnapshot.HistogramDataPointSnapshot.builder()
            .classicHistogramBuckets(ClassicHistogramBuckets.of(LATENCY_BOUNDS_SECONDS, counts))
            .sum(sum)
            .labels(Labels.of(with(labels)))
            .build());
        return this;
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
        family(name, Type.INFO, help).points.add(
            InfoSnapshot.InfoDataPointSnapshot.builder().labels(Labels.of(with(labels))).build());
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
            final String name = entry.getKey();
            final Family family = entry.getValue();
            switch (family.type)
            {
                case COUNTER ->
                {
                    final CounterSnapshot.Builder counter = CounterSnapshot.builder().name(name).help(family.help);
                    family.points.forEach((p) -> counter.dataPoint((CounterSnapshot.CounterDataPointSnapshot) p));
                    out.metricSnapshot(counter.build());
                }
                case GAUGE ->
                {
                    final GaugeSnapshot.Builder gauge = GaugeSnapshot.builder().name(name).help(family.help);
                    family.points.forEach((p) -> gauge.dataPoint((GaugeSnapshot.GaugeDataPointSnapshot) p));
                    out.metricSnapshot(gauge.build());
                }
                case HISTOGRAM ->
                {
                    final HistogramSnapshot.Builder histogram = HistogramSnapshot.builder().name(name)
                        .help(family.help);
                    family.points.forEach(
                        (p) -> histogram.dataPoint((HistogramSnapshot.HistogramDataPointSnapshot) p));
                    out.metricSnapshot(histogram.build());
                }
                default ->
                {
                    final InfoSnapshot.Builder info = InfoSnapshot.builder().name(name).help(family.help);
                    family.points.forEach((p) -> info.dataPoint((InfoSnapshot.InfoDataPointSnapshot) p));
                    out.metricSnapshot(info.build());
                }
            }
        }
        return out.build();
    }

    /**
     * The families one collector adds, in the Prometheus text format ({@link #toText()}): the exposition of a
     * component without a registry of its own.
     *
     * @param collector adds its families, as a {@code collectInto(MetricFamilies)} does.
     * @return the exposition text.
     */
    public static String textOf(final Consumer<MetricFamilies> collector)
    {
        final MetricFamilies out = new MetricFamilies();
        collector.accept(out);
        return out.toText();
    }

    /**
     * The families in the Prometheus text format 0.0.4, as the client writes it.
     *
     * @return the exposition text.
     */
    public String toText()
    {
        final ByteArrayOutputStream text = new ByteArrayOutputStream(4096);
        try
        {
            TEXT_WRITER.write(text, snapshots());
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
        return text.toString(StandardCharsets.UTF_8);
    }

    private String[] with(final String[] extra)
    {
        if (labels.length == 0)
        {
            return extra;
        }
        final String[] all = new String[labels.length + extra.length];
        System.arraycopy(labels, 0, all, 0, labels.length);
        System.arraycopy(extra, 0, all, labels.length, extra.length);
        return all;
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
        final Family created = new Family(type, help, new ArrayList<>());
        families.put(name, created);
        return created;
    }
}
