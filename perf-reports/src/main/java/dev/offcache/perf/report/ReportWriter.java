package dev.offcache.perf.report;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import dev.offcache.perf.jmh.JmhResult;
import dev.offcache.perf.jmh.Metric;
import dev.offcache.perf.jmh.Separation;
import dev.offcache.perf.pairing.PairedResult;
import dev.offcache.perf.pairing.Pairing;
import dev.offcache.perf.pairing.SuiteResults;

/**
 * Writes the benchmark report: {@code report.md} with the machine, the command, a summary, per suite the tables of
 * offcache against its baselines (score, error, speedup, verdict, allocation per operation) and the benchmarks
 * without a baseline; and one PNG chart per suite and mode under {@code charts/}.
 */
public final class ReportWriter
{
    /** The Markdown file's name in the output directory. */
    public static final String REPORT_FILE = "report.md";
    /** The directory of the charts, inside the output directory. */
    public static final String CHARTS_DIR = "charts";

    private ReportWriter()
    {
    }

    /**
     * What was written.
     *
     * @param markdown the report file.
     * @param charts   the chart files.
     * @param suites   the paired results the report shows.
     */
    public record Written(Path markdown, List<Path> charts, List<SuiteResults> suites)
    {
    }

    /**
     * Writes the report into a directory (created if needed).
     *
     * @param input  what to report.
     * @param outDir the output directory.
     * @return the files written.
     * @throws IOException on write failure.
     */
    public static Written write(final ReportInput input, final Path outDir) throws IOException
    {
        Files.createDirectories(outDir);
        final List<SuiteResults> suites = Pairing.pair(input.results());
        final List<Path> charts = new ArrayList<>();
        final StringBuilder md = new StringBuilder(16 * 1024);

        header(input, md);
        machine(input, md);
        summary(suites, md);
        for (final SuiteResults suite : suites)
        {
            suite(suite, outDir, charts, md);
        }
        missing(input, md);

        final Path markdown = outDir.resolve(REPORT_FILE);
        Files.writeString(markdown, md, StandardCharsets.UTF_8);
        return new Written(markdown, List.copyOf(charts), suites);
    }

    private static void header(final ReportInput input, final StringBuilder md)
    {
        final Set<String> jmhVersions = new TreeSet<>();
        input.results().forEach(r -> jmhVersions.add(r.environment().jmhVersion()));
        md.append("# ").append(input.title()).append("\n\n");
        md.append("Results: `").append(input.source()).append("` · ").append(input.results().size())
            .append(" results · JMH ").append(String.join(", ", jmhVersions)).append(" · report written ")
            .append(Instant.now().truncatedTo(ChronoUnit.SECONDS)).append(" by `offcache-perf`\n\n");
        for (final String note : input.notes())
        {
            md.append("> ").append(note).append("\n\n");
        }
        md.append("How to read it: **speedup** is how many times better offcache is than the baseline " +
            "(ours ÷ baseline for throughput, baseline ÷ ours for time per operation), so above 1× offcache wins. " +
            "The **verdict** names a winner only when JMH's 99.9% confidence intervals do not overlap; " +
            "*no error bars* means a single measurement iteration, where no winner can be claimed. " +
            "**alloc** is bytes allocated per operation (`gc.alloc.rate.norm`, from `-prof gc`).\n\n");
        md.append("## Command\n\n```\n")
            .append(input.command() == null ? "(unknown: the results file came without a run-info.json)" :
                input.command())
            .append("\n```\n\n");
    }

    private static void machine(final ReportInput input, final StringBuilder md)
    {
        final MachineInfo machine = input.machine();
        final Set<String> jvms = new LinkedHashSet<>();
        final Set<String> jvmArgs = new LinkedHashSet<>();
        final Set<String> iterations = new LinkedHashSet<>();
        for (final JmhResult result : input.results())
        {
            final JmhResult.Environment env = result.environment();
            jvms.add("JDK " + env.jdkVersion() + ", " + env.vmName() + " " + env.vmVersion());
            jvmArgs.add(String.join(" ", env.jvmArgs()));
            iterations.add("warm-up " + env.warmup() + ", measurement " + env.measurement() + ", forks " +
                result.forks());
        }
        md.append("## Machine\n\n");
        if (input.machineNote() != null)
        {
            md.append(input.machineNote()).append("\n\n");
        }
        md.append("| | |\n|---|---|\n");
        row(md, "CPU", machine.cpuModel());
        row(md, "logical CPUs", Integer.toString(machine.logicalCpus()));
        row(md, "memory", machine.memory());
        row(md, "OS", machine.os());
        row(md, "benchmark JVM", String.join("; ", jvms));
        row(md, "benchmark JVM args", "`" + String.join("`; `", jvmArgs) + "`");
        row(md, "iterations", String.join("; ", iterations));
        row(md, "load average (1m 5m 15m)", machine.loadAverage() +
            (input.loadAfter() == null ? "" : " at the start, " + input.loadAfter() + " at the end"));
        md.append('\n');
        final double atStart = firstLoad(machine.loadAverage());
        final double atEnd = firstLoad(input.loadAfter());
        final double load = Double.isNaN(atEnd) ? atStart : Double.isNaN(atStart) ? atEnd : Math.max(atStart, atEnd);
        if (load > machine.logicalCpus())
        {
            md.append("**Busy machine:** a load average of ").append(Formats.number(load)).append(" on ")
                .append(machine.logicalCpus()).append(" logical CPUs means other work competed with the " +
                "benchmarks; expect lower and noisier numbers than on an idle machine.\n\n");
        }
    }

    private static double firstLoad(final String loadAverage)
    {
        if (loadAverage == null)
        {
            return Double.NaN;
        }
        try
        {
            return Double.parseDouble(loadAverage.trim().split("\\s+")[0]);
        }
        catch (final NumberFormatException ex)
        {
            return Double.NaN;
        }
    }

    private static void row(final StringBuilder md, final String key, final String value)
    {
        md.append("| ").append(key).append(" | ").append(Formats.cell(value)).append(" |\n");
    }

    private static void summary(final List<SuiteResults> suites, final StringBuilder md)
    {
        md.append("## Summary\n\n");
        md.append("| suite | pairs | offcache better | baseline better | no clear winner | " +
            "geometric-mean speedup | without baseline |\n");
        md.append("|---|---:|---:|---:|---:|---:|---:|\n");
        for (final SuiteResults suite : suites)
        {
            int oursBetter = 0;
            int baselineBetter = 0;
            for (final PairedResult pair : suite.pairs())
            {
                final Separation separation = pair.separation();
                if (separation == Separation.FIRST_BETTER)
                {
                    oursBetter++;
                }
                else if (separation == Separation.SECOND_BETTER)
                {
                    baselineBetter++;
                }
            }
            md.append("| [").append(suite.shortName()).append("](#").append(anchor(suite.shortName())).append(") | ")
                .append(suite.pairs().size()).append(" | ")
                .append(oursBetter).append(" | ")
                .append(baselineBetter).append(" | ")
                .append(suite.pairs().size() - oursBetter - baselineBetter).append(" | ")
                .append(Formats.speedup(geometricMeanSpeedup(suite.pairs()))).append(" | ")
                .append(suite.standalone().size()).append(" |\n");
        }
        md.append('\n');
    }

    /**
     * The geometric mean of the pairs' speedups (the usual average of ratios).
     *
     * @param pairs pairs.
     * @return the mean, or NaN when no pair has a speedup.
     */
    public static double geometricMeanSpeedup(final List<PairedResult> pairs)
    {
        double logSum = 0;
        int count = 0;
        for (final PairedResult pair : pairs)
        {
            final double speedup = pair.speedup();
            if (speedup > 0 && Double.isFinite(speedup))
            {
                logSum += Math.log(speedup);
                count++;
            }
        }
        return count == 0 ? Double.NaN : Math.exp(logSum / count);
    }

    private static void suite(final SuiteResults suite, final Path outDir, final List<Path> charts,
        final StringBuilder md) throws IOException
    {
        md.append("## ").append(suite.shortName()).append("\n\n");
        final Map<String, List<PairedResult>> pairsByMode = new LinkedHashMap<>();
        suite.pairs().forEach(p -> pairsByMode.computeIfAbsent(p.ours().mode(), m -> new ArrayList<>()).add(p));
        for (final Map.Entry<String, List<PairedResult>> entry : pairsByMode.entrySet())
        {
            final String mode = entry.getKey();
            final boolean sample = "sample".equals(mode);
            md.append("### ").append(describeMode(mode)).append(": offcache against baseline\n\n");
            md.append("| operation | params | threads | unit | offcache | ± | baseline | baseline score | ± | " +
                "speedup | verdict | alloc B/op offcache | alloc B/op baseline |");
            md.append(sample ? " offcache p50 / p99 | baseline p50 / p99 |\n" : "\n");
            md.append("|---|---|---:|---|---:|---:|---|---:|---:|---:|---|---:|---:|");
            md.append(sample ? "---:|---:|\n" : "\n");
            for (final PairedResult pair : entry.getValue())
            {
                final Metric ours = pair.ours().primary();
                final Metric baseline = pair.baselineInOursUnit();
                md.append("| ").append(Formats.cell(pair.operationLabel()))
                    .append(" | ").append(Formats.cell(pair.sharedParamsLabel()))
                    .append(" | ").append(pair.ours().threads())
                    .append(" | ").append(ours.unit())
                    .append(" | ").append(Formats.number(ours.score()))
                    .append(" | ").append(Formats.number(ours.error()))
                    .append(" | ").append(Formats.cell(pair.baselineName()))
                    .append(" | ").append(Formats.number(baseline.score()))
                    .append(" | ").append(Formats.number(baseline.error()))
                    .append(" | ").append(Formats.speedup(pair.speedup()))
                    .append(" | ").append(Formats.pairVerdict(pair.separation()))
                    .append(" | ").append(alloc(pair.ours()))
                    .append(" | ").append(alloc(pair.baseline()))
                    .append(" |");
                if (sample)
                {
                    md.append(' ').append(Formats.number(ours.percentile("50.0"))).append(" / ")
                        .append(Formats.number(ours.percentile("99.0")))
                        .append(" | ").append(Formats.number(baseline.percentile("50.0"))).append(" / ")
                        .append(Formats.number(baseline.percentile("99.0"))).append(" |");
                }
                md.append('\n');
            }
            md.append('\n');
            final String chartName = ChartWriter.fileName(suite, mode, "pairs");
            final Path chart = outDir.resolve(CHARTS_DIR).resolve(chartName);
            if (ChartWriter.pairs(suite.shortName() + " — " + describeMode(mode), entry.getValue(), chart))
            {
                charts.add(chart);
                md.append("![").append(suite.shortName()).append(' ').append(mode).append("](").append(CHARTS_DIR)
                    .append('/').append(chartName).append(")\n\n");
            }
        }
        if (!suite.standalone().isEmpty())
        {
            standalone(suite, outDir, charts, md);
        }
    }

    private static void standalone(final SuiteResults suite, final Path outDir, final List<Path> charts,
        final StringBuilder md) throws IOException
    {
        md.append("### Without a baseline\n\n");
        md.append("| benchmark | params | mode | threads | score | ± | unit | alloc B/op |\n");
        md.append("|---|---|---|---:|---:|---:|---|---:|\n");
        final Map<String, List<JmhResult>> byMode = new LinkedHashMap<>();
        for (final JmhResult result : suite.standalone())
        {
            byMode.computeIfAbsent(result.mode(), m -> new ArrayList<>()).add(result);
            md.append("| ").append(Formats.cell(result.method()))
                .append(" | ").append(Formats.cell(result.paramsLabel()))
                .append(" | ").append(result.mode())
                .append(" | ").append(result.threads())
                .append(" | ").append(Formats.number(result.primary().score()))
                .append(" | ").append(Formats.number(result.primary().error()))
                .append(" | ").append(result.primary().unit())
                .append(" | ").append(alloc(result))
                .append(" |\n");
        }
        md.append('\n');
        for (final Map.Entry<String, List<JmhResult>> entry : byMode.entrySet())
        {
            final String chartName = ChartWriter.fileName(suite, entry.getKey(), "standalone");
            final Path chart = outDir.resolve(CHARTS_DIR).resolve(chartName);
            ChartWriter.standalone(suite.shortName() + " — " + describeMode(entry.getKey()) + ", without baseline",
                entry.getValue(), chart);
            charts.add(chart);
            md.append("![").append(suite.shortName()).append(' ').append(entry.getKey()).append(" without baseline](")
                .append(CHARTS_DIR).append('/').append(chartName).append(")\n\n");
        }
    }

    private static void missing(final ReportInput input, final StringBuilder md)
    {
        final Set<String> measured = new TreeSet<>();
        input.results().forEach(r -> measured.add(r.benchmark()));
        final List<String> missing = new ArrayList<>();
        for (final String planned : input.planned())
        {
            if (!measured.contains(planned))
            {
                missing.add(planned);
            }
        }
        if (missing.isEmpty())
        {
            return;
        }
        md.append("## Benchmarks without a result\n\n")
            .append("These were selected for the run but produced no result (they failed; see the JMH log):\n\n");
        missing.forEach(m -> md.append("- `").append(m).append("`\n"));
        md.append('\n');
    }

    private static String alloc(final JmhResult result)
    {
        final Metric alloc = result.allocationPerOp();
        return alloc == null ? "–" : Formats.number(alloc.score());
    }

    /**
     * Words for a JMH mode.
     *
     * @param mode JMH's short mode name.
     * @return for example {@code Throughput (higher is better)}.
     */
    public static String describeMode(final String mode)
    {
        return switch (mode)
        {
            case "thrpt" -> "Throughput (higher is better)";
            case "avgt" -> "Average time per operation (lower is better)";
            case "sample" -> "Sampled time per operation (lower is better)";
            case "ss" -> "Single-shot time (lower is better)";
            default -> mode;
        };
    }

    private static String anchor(final String heading)
    {
        return heading.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9 _-]", "").replace(' ', '-');
    }
}
