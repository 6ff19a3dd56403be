package dev.offcache.perf.report;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
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
import dev.offcache.perf.measure.MeasuredPair;
import dev.offcache.perf.measure.Measurement;
import dev.offcache.perf.measure.MeasurementFile;
import dev.offcache.perf.measure.MeasurementSuite;
import dev.offcache.perf.pairing.Comparison;
import dev.offcache.perf.pairing.PairedResult;
import dev.offcache.perf.pairing.Pairing;
import dev.offcache.perf.pairing.SpeedupSpread;
import dev.offcache.perf.pairing.SuiteResults;

/**
 * Writes the benchmark report: {@code report.md} with the command to rerun it, the machine, a summary (per suite the
 * geometric mean beside the median, worst and best pair), per suite a speedup chart, the tables of offcache against
 * its baselines (score, error, speedup, verdict, allocation per operation) with score charts, and the results
 * without a baseline; then the suites of the measurement files (results not from JMH) in the same form. The charts
 * go to {@code charts/} (its old PNGs are removed first).
 */
public final class ReportWriter
{
    /** The Markdown file's name in the output directory. */
    public static final String REPORT_FILE = "report.md";
    /** The directory of the charts, inside the output directory. */
    public static final String CHARTS_DIR = "charts";

    /** The mean is called out as pulled by extremes when it is this many times off the median. */
    private static final double SKEWED_MEAN = 2.0;

    private ReportWriter()
    {
    }

    /**
     * What was written.
     *
     * @param markdown          the report file.
     * @param charts            the chart files.
     * @param suites            the paired JMH results the report shows.
     * @param measurementSuites the paired measurement files the report shows.
     */
    public record Written(Path markdown, List<Path> charts, List<SuiteResults> suites,
        List<MeasurementSuite> measurementSuites)
    {
        /**
         * Pairs in the report, JMH and measurement files together.
         *
         * @return the count.
         */
        public int pairCount()
        {
            return suites.stream().mapToInt(s -> s.pairs().size()).sum() +
                measurementSuites.stream().mapToInt(s -> s.pairs().size()).sum();
        }
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
        removeOldCharts(outDir.resolve(CHARTS_DIR));
        final List<SuiteResults> suites = input.results().isEmpty() ? List.of() : Pairing.pair(input.results());
        final List<MeasurementSuite> measurementSuites = input.measurements().stream()
            .map(MeasurementSuite::pair).toList();
        final List<Path> charts = new ArrayList<>();
        final StringBuilder md = new StringBuilder(32 * 1024);

        header(input, md);
        command(input, md);
        machine(input, md);
        summary(suites, measurementSuites, md);
        for (final SuiteResults suite : suites)
        {
            suite(suite, outDir, charts, md);
        }
        for (final MeasurementSuite suite : measurementSuites)
        {
            measurementSuite(suite, outDir, charts, md);
        }
        missing(input, md);

        final Path markdown = outDir.resolve(REPORT_FILE);
        Files.writeString(markdown, md, StandardCharsets.UTF_8);
        return new Written(markdown, List.copyOf(charts), suites, measurementSuites);
    }

    private static void removeOldCharts(final Path chartsDir) throws IOException
    {
        if (!Files.isDirectory(chartsDir))
        {
            return;
        }
        try (DirectoryStream<Path> pngs = Files.newDirectoryStream(chartsDir, "*.png"))
        {
            for (final Path png : pngs)
            {
                Files.delete(png);
            }
        }
    }

    private static void header(final ReportInput input, final StringBuilder md)
    {
        md.append("# ").append(input.title()).append("\n\n");
        final List<String> sources = new ArrayList<>();
        if (!input.results().isEmpty())
        {
            final Set<String> jmhVersions = new TreeSet<>();
            input.results().forEach(r -> jmhVersions.add(r.environment().jmhVersion()));
            sources.add("Results: `" + input.source() + "` · " + input.results().size() + " results · JMH " +
                String.join(", ", jmhVersions));
        }
        if (!input.measurements().isEmpty())
        {
            sources.add(input.measurements().size() + " measurement file" +
                (input.measurements().size() == 1 ? "" : "s") + " (not JMH)");
        }
        md.append(String.join(" · ", sources)).append(" · report written ")
            .append(Instant.now().truncatedTo(ChronoUnit.SECONDS)).append(" by `offcache-perf`\n\n");
        for (final String note : input.notes())
        {
            md.append("> ").append(note).append("\n\n");
        }
        md.append("How to read it: **speedup** is how many times better offcache is than the baseline " +
            "(ours ÷ baseline for throughput, baseline ÷ ours for time per operation), so above 1× offcache wins. " +
            "The **verdict** names a winner only when the two 99.9% confidence intervals do not overlap; " +
            "*no error bars* means a single measurement iteration, or a measurement of fewer than " +
            MeasuredPair.MIN_REPEATS + " repeats (the range of two runs is no interval), where no winner can be " +
            "claimed. " +
            "**Origin traffic** (engine-level suites) is what the origin served per operation, counted exactly by " +
            "the benchmark beside its time: GETs, bytes, metadata calls, the reason to buy a cache. " +
            "**alloc** is bytes allocated per operation (`gc.alloc.rate.norm`, from `-prof gc`). " +
            "Each suite's **speedup chart** draws one bar per pair on a log axis centred at 1× " +
            "(a 0.5× and a 2× are bars of one length pointing opposite ways), with the speedups both intervals " +
            "allow as whiskers; " +
            "a suite's headline is its geometric mean **beside the median and the worst pair**, since one extreme " +
            "pair can carry the mean.\n\n");
    }

    private static void command(final ReportInput input, final StringBuilder md)
    {
        md.append("## Command\n\n");
        if (input.command() != null)
        {
            md.append("From the repository root:\n\n```\n").append(input.command()).append("\n```\n\n");
        }
        if (input.jmhCommand() != null && !input.jmhCommand().equals(input.command()))
        {
            md.append(input.command() == null ? "The recorded JMH command:" : "which ran JMH as:")
                .append("\n\n```\n").append(input.jmhCommand()).append("\n```\n\n");
        }
        if (input.command() == null && input.jmhCommand() == null && !input.results().isEmpty())
        {
            md.append("```\n(unknown: the results file came without a run-info.json)\n```\n\n");
        }
        if (!input.measurements().isEmpty())
        {
            md.append("Measurement files, each produced by its own command (shown with its suite below):\n\n");
            for (final MeasurementFile file : input.measurements())
            {
                md.append("- [").append(file.suite()).append("](#").append(anchor(file.suite())).append("): `")
                    .append(file.command()).append("`\n");
            }
            md.append('\n');
        }
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
        if (!input.results().isEmpty())
        {
            row(md, "benchmark JVM", String.join("; ", jvms));
            row(md, "benchmark JVM args", "`" + String.join("`; `", jvmArgs) + "`");
            row(md, "iterations", String.join("; ", iterations));
        }
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

    private static void summary(final List<SuiteResults> suites, final List<MeasurementSuite> measurementSuites,
        final StringBuilder md)
    {
        md.append("## Summary\n\n");
        md.append("Per suite: the pairs each side wins beyond the error bars, and the speedups' geometric mean " +
            "beside the median pair, the worst pair and the best pair (a pair is offcache against one baseline on " +
            "one operation and parameter set).\n\n");
        md.append("| suite | pairs | offcache better | baseline better | no clear winner | geometric mean | " +
            "median pair | worst pair | best pair | without baseline |\n");
        md.append("|---|---:|---:|---:|---:|---:|---|---|---|---:|\n");
        for (final SuiteResults suite : suites)
        {
            summaryRow(suite.shortName(), suite.shortName(), SpeedupSpread.of(suite.pairs()), suite.standalone().size(),
                md);
        }
        for (final MeasurementSuite suite : measurementSuites)
        {
            summaryRow(suite.name() + " (not JMH)", suite.name(), SpeedupSpread.of(suite.pairs()),
                suite.unpaired().size(), md);
        }
        md.append('\n');
    }

    private static void summaryRow(final String name, final String heading, final SpeedupSpread spread,
        final int standalone, final StringBuilder md)
    {
        md.append("| [").append(name).append("](#").append(anchor(heading)).append(") | ")
            .append(spread.pairs()).append(" | ")
            .append(spread.oursBetter()).append(" | ")
            .append(spread.baselineBetter()).append(" | ")
            .append(spread.noClearWinner()).append(" | ")
            .append(Formats.speedup(spread.geometricMean())).append(" | ")
            .append(spread.withSpeedup() == 2 ? "–" : pairCell(spread.median())).append(" | ")
            .append(pairCell(spread.worst())).append(" | ")
            .append(pairCell(spread.best())).append(" | ")
            .append(standalone).append(" |\n");
    }

    private static String pairCell(final Comparison pair)
    {
        return pair == null ? "–" : Formats.cell(Formats.speedup(pair.speedup()) + " " + pairName(pair));
    }

    private static String pairName(final Comparison pair)
    {
        return pair.label() + " vs " + pair.baselineName();
    }

    /**
     * The sentence under a suite's heading: wins, the mean beside median, worst and best pair.
     *
     * @param spread the suite's spread.
     * @return Markdown.
     */
    static String headline(final SpeedupSpread spread)
    {
        final StringBuilder text = new StringBuilder();
        text.append("**").append(spread.pairs()).append(spread.pairs() == 1 ? " pair" : " pairs")
            .append(": offcache better in ").append(spread.oursBetter()).append(", baseline better in ")
            .append(spread.baselineBetter()).append(", no clear winner in ").append(spread.noClearWinner())
            .append(".**");
        if (spread.median() != null)
        {
            text.append(" Speedup: geometric mean ").append(Formats.speedup(spread.geometricMean()));
            if (spread.withSpeedup() == 1)
            {
                text.append(" (one pair)");
            }
            else
            {
                if (spread.withSpeedup() > 2)
                {
                    text.append(", median ").append(Formats.speedup(spread.median().speedup())).append(" (")
                        .append(pairName(spread.median())).append(")");
                }
                text.append(", worst ")
                    .append(Formats.speedup(spread.worst().speedup())).append(" (").append(pairName(spread.worst()))
                    .append("), best ").append(Formats.speedup(spread.best().speedup())).append(" (")
                    .append(pairName(spread.best())).append(")");
            }
            text.append('.');
            final double skew = spread.geometricMean() / spread.median().speedup();
            if (spread.withSpeedup() > 2 && (skew > SKEWED_MEAN || skew < 1 / SKEWED_MEAN))
            {
                text.append(" The mean is ").append(Formats.number(Math.max(skew, 1 / skew)))
                    .append("× off the median: it is carried by extreme pairs, read the median and the worst pair.");
            }
        }
        return text.toString();
    }

    private static void suite(final SuiteResults suite, final Path outDir, final List<Path> charts,
        final StringBuilder md) throws IOException
    {
        md.append("## ").append(suite.shortName()).append("\n\n");
        if (!suite.pairs().isEmpty())
        {
            md.append(headline(SpeedupSpread.of(suite.pairs()))).append("\n\n");
            chart(md, charts, outDir, ChartWriter.fileName(suite.shortName(), "", "speedup"),
                suite.shortName() + " speedup", file -> ChartWriter.speedups(suite.shortName() +
                    " — speedup of offcache over each baseline", suite.pairs(), file));
        }
        final Map<String, List<PairedResult>> pairsByMode = new LinkedHashMap<>();
        suite.pairs().forEach(p -> pairsByMode.computeIfAbsent(p.ours().mode(), m -> new ArrayList<>()).add(p));
        for (final Map.Entry<String, List<PairedResult>> entry : pairsByMode.entrySet())
        {
            final String mode = entry.getKey();
            final boolean sample = "sample".equals(mode);
            md.append("### ").append(describeMode(mode)).append(": offcache against baseline\n\n");
            md.append("| operation | params | threads | unit | offcache | ± | baseline | baseline score | ± | " +
                "speedup | verdict | alloc B/op offcache | alloc B/op baseline |");
            md.append(sample ? " offcache p50 / p99 | baseline p50 / p99 | speedup p50 / p99 |\n" : "\n");
            md.append("|---|---|---:|---|---:|---:|---|---:|---:|---:|---|---:|---:|");
            md.append(sample ? "---:|---:|---:|\n" : "\n");
            for (final PairedResult pair : entry.getValue())
            {
                final Metric ours = pair.oursMetric();
                final Metric baseline = pair.baselineMetric();
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
                        .append(Formats.number(baseline.percentile("99.0")))
                        .append(" | ").append(Formats.speedup(percentileSpeedup(pair, "50.0"))).append(" / ")
                        .append(Formats.speedup(percentileSpeedup(pair, "99.0"))).append(" |");
                }
                md.append('\n');
            }
            md.append('\n');
            final String title = suite.shortName() + " — " + describeMode(mode);
            chart(md, charts, outDir, ChartWriter.fileName(suite.shortName(), mode, "pairs"),
                suite.shortName() + " " + mode + " scores",
                file -> ChartWriter.scores(title + ", scores", entry.getValue(), file));
            if (sample)
            {
                chart(md, charts, outDir, ChartWriter.fileName(suite.shortName(), mode, "percentiles"),
                    suite.shortName() + " p50 and p99",
                    file -> ChartWriter.percentiles(suite.shortName() + " — latency p50 and p99", entry.getValue(),
                        file));
            }
        }
        final OriginTraffic traffic = OriginTraffic.of(suite);
        if (traffic != null)
        {
            traffic.appendTo(md);
        }
        if (!suite.standalone().isEmpty())
        {
            standalone(suite, outDir, charts, md);
        }
    }

    /** Baseline's percentile ÷ ours': above 1 offcache's latency at that percentile is lower. */
    private static double percentileSpeedup(final PairedResult pair, final String percentile)
    {
        final double ours = pair.oursMetric().percentile(percentile);
        final double baseline = pair.baselineMetric().percentile(percentile);
        final double speedup = baseline / ours;
        return Double.isFinite(speedup) && speedup > 0 ? speedup : Double.NaN;
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
            chart(md, charts, outDir, ChartWriter.fileName(suite.shortName(), entry.getKey(), "standalone"),
                suite.shortName() + " " + entry.getKey() + " without baseline", file ->
                {
                    ChartWriter.standalone(suite.shortName() + " — " + describeMode(entry.getKey()) +
                        ", without baseline", entry.getValue(), file);
                    return true;
                });
        }
    }

    private static void measurementSuite(final MeasurementSuite suite, final Path outDir, final List<Path> charts,
        final StringBuilder md) throws IOException
    {
        final MeasurementFile file = suite.file();
        md.append("## ").append(suite.name()).append("\n\n");
        if (file.title() != null)
        {
            md.append(file.title()).append("\n\n");
        }
        md.append("Not JMH: measured by\n\n```\n").append(file.command()).append("\n```\n\n");
        md.append("| | |\n|---|---|\n");
        row(md, "file", RepoPaths.display(file.source()));
        if (file.startedAt() != null)
        {
            row(md, "started", file.startedAt());
        }
        if (file.machine() != null)
        {
            row(md, "machine", file.machine());
        }
        if (file.loadAtStart() != null || file.loadAtEnd() != null)
        {
            row(md, "load average (1m 5m 15m)", (file.loadAtStart() == null ? "?" : file.loadAtStart()) +
                " at the start, " + (file.loadAtEnd() == null ? "?" : file.loadAtEnd()) + " at the end");
        }
        md.append('\n');
        for (final String note : file.notes())
        {
            md.append("> ").append(note).append("\n\n");
        }
        if (!suite.pairs().isEmpty())
        {
            md.append(headline(SpeedupSpread.of(suite.pairs()))).append("\n\n");
            chart(md, charts, outDir, ChartWriter.fileName(suite.name(), "", "speedup"), suite.name() + " speedup",
                png -> ChartWriter.speedups(suite.name() + " — speedup of offcache over each baseline",
                    suite.pairs(), png));
            md.append("| case | metric | unit | better | offcache | interval | baseline | baseline value | " +
                "interval | speedup | verdict |\n");
            md.append("|---|---|---|---|---:|---|---|---:|---|---:|---|\n");
            final Map<String, List<MeasuredPair>> byUnit = new LinkedHashMap<>();
            for (final MeasuredPair pair : suite.pairs())
            {
                byUnit.computeIfAbsent(pair.ours().unit(), u -> new ArrayList<>()).add(pair);
                md.append("| ").append(Formats.cell(pair.ours().caseName()))
                    .append(" | ").append(Formats.cell(pair.ours().metric()))
                    .append(" | ").append(Formats.cell(pair.ours().unit()))
                    .append(" | ").append(pair.higherIsBetter() ? "higher" : "lower")
                    .append(" | ").append(Formats.number(pair.ours().value().score()))
                    .append(" | ").append(Formats.cell(Formats.interval(pair.ours())))
                    .append(" | ").append(Formats.cell(pair.baselineName()))
                    .append(" | ").append(Formats.number(pair.baseline().value().score()))
                    .append(" | ").append(Formats.cell(Formats.interval(pair.baseline())))
                    .append(" | ").append(Formats.speedup(pair.speedup()))
                    .append(" | ").append(Formats.pairVerdict(pair.separation()))
                    .append(" |\n");
            }
            md.append('\n');
            for (final Map.Entry<String, List<MeasuredPair>> entry : byUnit.entrySet())
            {
                final String unit = entry.getKey();
                chart(md, charts, outDir, ChartWriter.fileName(suite.name(), unit, "pairs"),
                    suite.name() + " " + unit, png -> ChartWriter.scores(suite.name() + " — " + unit,
                        entry.getValue(), png));
            }
        }
        if (!suite.unpaired().isEmpty())
        {
            md.append("### Without a partner\n\n")
                .append("| case | metric | implementation | unit | better | value | interval |\n");
            md.append("|---|---|---|---|---|---:|---|\n");
            for (final Measurement measurement : suite.unpaired())
            {
                md.append("| ").append(Formats.cell(measurement.caseName()))
                    .append(" | ").append(Formats.cell(measurement.metric()))
                    .append(" | ").append(Formats.cell(measurement.impl()))
                    .append(" | ").append(Formats.cell(measurement.unit()))
                    .append(" | ").append(measurement.higherIsBetter() ? "higher" : "lower")
                    .append(" | ").append(Formats.number(measurement.value().score()))
                    .append(" | ").append(Formats.cell(Formats.interval(measurement)))
                    .append(" |\n");
            }
            md.append('\n');
        }
    }

    /** Draws a chart and links it, when the drawing produced one. */
    private static void chart(final StringBuilder md, final List<Path> charts, final Path outDir,
        final String fileName, final String alt, final ChartDrawing drawing) throws IOException
    {
        final Path file = outDir.resolve(CHARTS_DIR).resolve(fileName);
        if (drawing.draw(file))
        {
            charts.add(file);
            md.append("![").append(alt).append("](").append(CHARTS_DIR).append('/').append(fileName).append(")\n\n");
        }
    }

    /** One chart's drawing: true when it wrote the file. */
    @FunctionalInterface
    private interface ChartDrawing
    {
        boolean draw(Path file) throws IOException;
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
