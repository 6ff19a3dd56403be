package dev.offcache.server.metrics;

import java.util.Map;

import dev.offcache.range.metrics.MetricNames;
import dev.offcache.range.metrics.RangeMetrics;

/**
 * The range-cache engine's {@code offcache_range_*} counters (Agrona counters, read at scrape time, never on
 * the engine's paths) and its origin GET latency (an HdrHistogram, exposed as a histogram) for one scrape.
 */
public final class EngineMetrics
{
    private EngineMetrics()
    {
    }

    /**
     * Adds the engine's families.
     *
     * @param out     the scrape's families.
     * @param metrics the engine's metrics.
     */
    public static void collectInto(final MetricFamilies out, final RangeMetrics metrics)
    {
        for (final Map.Entry<String, Long> entry : metrics.snapshot().entrySet())
        {
            final String name = entry.getKey();
            final int brace = name.indexOf('{');
            final String family = brace < 0 ? name : name.substring(0, brace);
            final String[] labels = brace < 0 ? new String[0] : labelsOf(name.substring(brace + 1, name.length() - 1));
            final String help = MetricNames.help(family);
            if (family.endsWith("_total"))
            {
                out.counter(family, help, entry.getValue(), labels);
            }
            else
            {
                out.gauge(family, help, entry.getValue(), labels);
            }
        }
        out.latency(MetricNames.ORIGIN_GET_SECONDS, MetricNames.help(MetricNames.ORIGIN_GET_SECONDS),
            metrics.originGetLatency(), 1e9);
    }

    /** {@code a="x",b="y"} (the counters' own tag suffixes, which hold no commas or quotes) as name, value pairs. */
    private static String[] labelsOf(final String pairs)
    {
        final String[] parts = pairs.split(",");
        final String[] labels = new String[parts.length * 2];
        for (int i = 0; i < parts.length; i++)
        {
            final int equals = parts[i].indexOf('=');
            labels[2 * i] = parts[i].substring(0, equals);
            labels[2 * i + 1] = parts[i].substring(equals + 2, parts[i].length() - 1);
        }
        return labels;
    }
}
