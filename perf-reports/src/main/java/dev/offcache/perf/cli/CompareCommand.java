package dev.offcache.perf.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import dev.offcache.perf.compare.Change;
import dev.offcache.perf.compare.CompareWriter;
import dev.offcache.perf.compare.MeasurementChange;
import dev.offcache.perf.compare.MeasurementComparison;
import dev.offcache.perf.compare.ResultComparison;
import dev.offcache.perf.jmh.JmhResult;
import dev.offcache.perf.jmh.JmhResultReader;
import dev.offcache.perf.measure.MeasurementFile;
import dev.offcache.perf.pairing.SuiteResults;
import dev.offcache.perf.report.RepoPaths;
import dev.offcache.perf.run.BenchmarkRunner;

/**
 * {@code offcache-perf compare}: the changes between two result sets (two JMH result files, or two report
 * directories with their JMH results and measurement files), with regressions flagged.
 */
@Command(name = "compare", mixinStandardHelpOptions = true,
    description = "Compares two JMH result files, or two report directories (jmh-result.json and measurements/), " +
        "and writes compare.md; a regression is a worse score whose 99.9%% confidence interval does not overlap " +
        "the baseline's.")
public final class CompareCommand implements Callable<Integer>
{
    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Option(names = "--baseline", required = true, paramLabel = "PATH",
        description = "Reference: a JMH result file or a report directory.")
    private Path baseline;

    @Option(names = "--candidate", required = true, paramLabel = "PATH",
        description = "New results: a JMH result file or a report directory.")
    private Path candidate;

    @Option(names = "--out", required = true, paramLabel = "DIR", description = "Output directory.")
    private Path out;

    @Option(names = "--fail-on-regression", description = "Exit with code 3 when anything is flagged.")
    private boolean failOnRegression;

    @Override
    public Integer call() throws Exception
    {
        final Inputs before = Inputs.of(baseline);
        final Inputs after = Inputs.of(candidate);
        final List<Change> changes = ResultComparison.compare(before.results(), after.results());
        final List<MeasurementChange> measurementChanges = MeasurementComparison.compare(before.measurements(),
            after.measurements());
        final Path file = CompareWriter.write(RepoPaths.display(baseline), RepoPaths.display(candidate), changes,
            measurementChanges, out);
        final List<Change> flagged = changes.stream().filter(Change::flagged).toList();
        final List<MeasurementChange> flaggedMeasurements = measurementChanges.stream()
            .filter(MeasurementChange::flagged).toList();
        for (final Change change : flagged)
        {
            spec.commandLine().getOut().println("[perf] " + SuiteResults.shorten(change.key()) + ": " +
                CompareWriter.describe(change));
        }
        for (final MeasurementChange change : flaggedMeasurements)
        {
            spec.commandLine().getOut().println("[perf] " + change.suite() + " · " + change.key() + ": " +
                CompareWriter.describe(change));
        }
        final int total = flagged.size() + flaggedMeasurements.size();
        spec.commandLine().getOut().println("[perf] compare: " + file + " (" + changes.size() + " benchmarks" +
            (measurementChanges.isEmpty() ? "" : ", " + measurementChanges.size() + " measurements") + ", " + total +
            " flagged)");
        return failOnRegression && total > 0 ? OffcachePerf.EXIT_REGRESSION : 0;
    }

    /** One side of the comparison: a JMH result file alone, or what a report directory holds. */
    private record Inputs(List<JmhResult> results, List<MeasurementFile> measurements)
    {
        static Inputs of(final Path path) throws IOException
        {
            if (!Files.isDirectory(path))
            {
                return new Inputs(JmhResultReader.read(path), List.of());
            }
            final Path json = path.resolve(BenchmarkRunner.RESULT_FILE);
            final List<MeasurementFile> measurements = MeasurementInputs.read(MeasurementInputs.in(path));
            if (!Files.exists(json) && measurements.isEmpty())
            {
                throw new IllegalArgumentException(path + " is a directory without " + BenchmarkRunner.RESULT_FILE +
                    " or " + MeasurementInputs.DIR + "/*.json: not a report directory");
            }
            return new Inputs(Files.exists(json) ? JmhResultReader.read(json) : List.of(), measurements);
        }
    }
}
