package dev.offcache.server.metrics;

/**
 * Appends metrics in the Prometheus text exposition format (version 0.0.4). The caller owns the builder; one
 * scrape builds one page, so nothing here is shared between threads.
 */
public final class PrometheusText
{
    private final StringBuilder out;
    private String lastFamily;

    /**
     * Writes into a builder.
     *
     * @param out the page being built.
     */
    public PrometheusText(final StringBuilder out)
    {
        this.out = out;
    }

    /**
     * A counter sample.
     *
     * @param name   metric name, such as {@code offcache_server_ssd_writes_total}.
     * @param help   one line of help.
     * @param labels label pairs rendered as-is ({@code tier="ram"}), or empty.
     * @param value  the value.
     * @return this.
     */
    public PrometheusText counter(final String name, final String help, final String labels, final long value)
    {
        return sample(name, "counter", help, labels, value);
    }

    /**
     * A gauge sample.
     *
     * @param name   metric name.
     * @param help   one line of help.
     * @param labels label pairs, or empty.
     * @param value  the value.
     * @return this.
     */
    public PrometheusText gauge(final String name, final String help, final String labels, final double value)
    {
        return sample(name, "gauge", help, labels, value);
    }

    /**
     * A summary with the 0.5, 0.99 and 0.999 quantiles.
     *
     * @param name  metric name, in seconds.
     * @param help  one line of help.
     * @param count observations.
     * @param sum   sum of observations.
     * @param p50   median.
     * @param p99   99th percentile.
     * @param p999  99.9th percentile.
     * @return this.
     */
    public PrometheusText summary(
        final String name, final String help, final long count, final double sum, final double p50,
        final double p99, final double p999)
    {
        sample(name, "summary", help, "quantile=\"0.5\"", p50);
        sample(name, "summary", help, "quantile=\"0.99\"", p99);
        sample(name, "summary", help, "quantile=\"0.999\"", p999);
        out.append(name).append("_sum ").append(sum).append('\n');
        out.append(name).append("_count ").append(count).append('\n');
        return this;
    }

    private PrometheusText sample(
        final String name, final String type, final String help, final String labels, final double value)
    {
        if (!name.equals(lastFamily))
        {
            if (help.isEmpty())
            {
                throw new IllegalArgumentException("the first sample of " + name + " needs its help text");
            }
            out.append("# HELP ").append(name).append(' ').append(help).append('\n');
            out.append("# TYPE ").append(name).append(' ').append(type).append('\n');
            lastFamily = name;
        }
        out.append(name);
        if (!labels.isEmpty())
        {
            out.append('{').append(labels).append('}');
        }
        out.append(' ');
        if (value == Math.rint(value) && Math.abs(value) < 1e15)
        {
            out.append((long) value);
        }
        else
        {
            out.append(value);
        }
        out.append('\n');
        return this;
    }
}
