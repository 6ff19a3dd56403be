package dev.offcache.perf.compare;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;

import dev.offcache.perf.jmh.JmhResult;
import dev.offcache.perf.jmh.Metric;
import dev.offcache.perf.measure.Measurement;
import dev.offcache.perf.pairing.SuiteResults;
import dev.offcache.perf.report.Formats;

/**
 * Writes {@code compare.md}: the regressions first, then a table of every benchmark's change with its verdict.
 */
public final class CompareWriter
{
    /** The Markdown file's name in the output directory. */
    public static final String COMPARE_FILE = "compare.md";

    private CompareWriter()
    {
    }

    /**
     * Writes the comparison.
     *
     * @param baselineSource  name of the baseline file.
     * @param candidateSource name of the candidate file.
     * @param changes         the changes of the JMH results.
     * @param measurementChanges the changes of the measurement files' values.
     * @param outDir          output directory (created if needed).
     * @return the file written.
     * @throws IOException on write failure.
     */
    public static Path write(final String baselineSource, final String candidateSource, final List<Change> changes,
        final List<MeasurementChange> measurementChanges, final Path outDir) throws IOException
    {
        Files.createDirectories(outDir);
        final StringBuilder md = new StringBuilder(8 * 1024);
        final long flagged = changes.stream().filter(Change::flagged).count() +
            measurementChanges.stream().filter(MeasurementChange::flagged).count();
        md.append("# offcache benchmark comparison\n\n");
        md.append("Baseline: `").append(baselineSource).append("` · candidate: `").append(candidateSource)
            .append("` · written ").append(Instant.now().truncatedTo(ChronoUnit.SECONDS)).append("\n\n");
        md.append("A **regression** is a score that moved the worse way (lower throughput, more time per operation) " +
            "with JMH's 99.9% confidence intervals of baseline and candidate not overlapping; an " +
            "**alloc regression** is bytes allocated per operation that grew the same way by at least " +
            Formats.number(ResultComparison.ALLOCATION_SLACK_BYTES) + " B/op. Changes inside the error bars are " +
            "not changes; results of a single iteration have no error bars and are not judged.\n\n");
        md.append("## ").append(flagged == 0 ? "No regressions" : flagged + " flagged").append("\n\n");
        for (final Change change : changes)
        {
            if (change.flagged())
            {
                md.append("- `").append(SuiteResults.shorten(change.key())).append("`: ").append(describe(change))
                    .append('\n');
            }
        }
        for (final MeasurementChange change : measurementChanges)
        {
            if (change.flagged())
            {
                md.append("- `").append(change.suite()).append(" · ").append(change.key()).append("`: ")
                    .append(describe(change)).append('\n');
            }
        }
        if (flagged > 0)
        {
            md.append('\n');
        }
        if (changes.isEmpty())
        {
            measurements(measurementChanges, md);
            final Path file = outDir.resolve(COMPARE_FILE);
            Files.writeString(file, md, StandardCharsets.UTF_8);
            return file;
        }
        md.append("## All benchmarks\n\n");
        md.append("| benchmark | params | mode | threads | unit | baseline | ± | candidate | ± | change | verdict | " +
            "alloc B/op |\n");
        md.append("|---|---|---|---:|---|---:|---:|---:|---:|---:|---|---|\n");
        for (final Change change : changes)
        {
            final JmhResult any = change.baseline() != null ? change.baseline() : change.candidate();
            final Metric base = change.baseline() == null ? null : change.baseline().primary();
            final Metric cand = change.candidateInBaselineUnit();
            md.append("| ").append(Formats.cell(SuiteResults.shorten(any.benchmark())))
                .append(" | ").append(Formats.cell(any.paramsLabel()))
                .append(" | ").append(any.mode())
                .append(" | ").append(any.threads())
                .append(" | ").append(base != null ? base.unit() : cand.unit())
                .append(" | ").append(base == null ? "–" : Formats.number(base.score()))
                .append(" | ").append(base == null ? "–" : Formats.number(base.error()))
                .append(" | ").append(cand == null ? "–" : Formats.number(cand.score()))
                .append(" | ").append(cand == null ? "–" : Formats.number(cand.error()))
                .append(" | ").append(Formats.percent(change.changePercent()))
                .append(" | ").append(verdictCell(change.verdict()))
                .append(" | ").append(allocCell(change))
                .append(" |\n");
        }
        measurements(measurementChanges, md);
        final Path file = outDir.resolve(COMPARE_FILE);
        Files.writeString(file, md, StandardCharsets.UTF_8);
        return file;
    }

    /**
     * One line describing a flagged change, for the console and the list at the top.
     *
     * @param change a change.
     * @return for example {@code REGRESSION 1,000 → 700 ops/s (-30.0%)}.
     */
    public static String describe(final Change change)
    {
        final StringBuilder text = new StringBuilder();
        if (change.verdict() == ChangeVerdict.REGRESSION)
        {
            text.append("REGRESSION ").append(Formats.number(change.baseline().primary().score())).append(" → ")
                .append(Formats.number(change.candidateInBaselineUnit().score())).append(' ')
                .append(change.baseline().primary().unit()).append(" (")
                .append(Formats.percent(change.changePercent())).append(')');
        }
        if (change.allocationRegression())
        {
            if (text.length() > 0)
            {
                text.append("; ");
            }
            text.append("ALLOC REGRESSION ").append(allocCell(change));
        }
        return text.toString();
    }

    private static void measurements(final List<MeasurementChange> changes, final StringBuilder md)
    {
        if (changes.isEmpty())
        {
            return;
        }
        md.append("\n## Measurement files (not JMH)\n\n");
        md.append("| suite | case | metric | implementation | unit | better | baseline | interval | candidate | " +
            "interval | change | verdict |\n");
        md.append("|---|---|---|---|---|---|---:|---|---:|---|---:|---|\n");
        for (final MeasurementChange change : changes)
        {
            final Measurement any = change.baseline() != null ? change.baseline() : change.candidate();
            md.append("| ").append(Formats.cell(change.suite()))
                .append(" | ").append(Formats.cell(any.caseName()))
                .append(" | ").append(Formats.cell(any.metric()))
                .append(" | ").append(Formats.cell(any.impl()))
                .append(" | ").append(Formats.cell(any.unit()))
                .append(" | ").append(any.higherIsBetter() ? "higher" : "lower")
                .append(" | ").append(change.baseline() == null ? "–" :
                    Formats.number(change.baseline().value().score()))
                .append(" | ").append(change.baseline() == null ? "–" : Formats.interval(change.baseline()))
                .append(" | ").append(change.candidate() == null ? "–" :
                    Formats.number(change.candidate().value().score()))
                .append(" | ").append(change.candidate() == null ? "–" : Formats.interval(change.candidate()))
                .append(" | ").append(Formats.percent(change.changePercent()))
                .append(" | ").append(verdictCell(change.verdict()))
                .append(" |\n");
        }
    }

    /**
     * One line describing a flagged measurement change.
     *
     * @param change a flagged change.
     * @return for example {@code REGRESSION 22,212 → 15,000 req/s (-32.5%)}.
     */
    public static String describe(final MeasurementChange change)
    {
        return "REGRESSION " + Formats.number(change.baseline().value().score()) + " → " +
            Formats.number(change.candidate().value().score()) + " " + change.baseline().unit() + " (" +
            Formats.percent(change.changePercent()) + ", " + (change.baseline().higherIsBetter() ? "higher" :
            "lower") + " is better)";
    }

    private static String verdictCell(final ChangeVerdict verdict)
    {
        return switch (verdict)
        {
            case REGRESSION -> "**REGRESSION**";
            case IMPROVEMENT -> "improvement";
            case WITHIN_ERROR -> "within error";
            case NO_ERROR_BARS -> "no error bars";
            case INCOMPARABLE -> "units differ";
            case ADDED -> "added";
            case REMOVED -> "removed";
        };
    }

    private static String allocCell(final Change change)
    {
        final Metric before = change.baseline() == null ? null : change.baseline().allocationPerOp();
        final Metric after = change.candidate() == null ? null : change.candidate().allocationPerOp();
        if (before == null && after == null)
        {
            return "–";
        }
        final String cell = (before == null ? "–" : Formats.number(before.score())) + " → " +
            (after == null ? "–" : Formats.number(after.score()));
        return change.allocationRegression() ? "**" + cell + "**" : cell;
    }
}
