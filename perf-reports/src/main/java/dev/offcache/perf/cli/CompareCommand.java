package dev.offcache.perf.cli;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import dev.offcache.perf.compare.Change;
import dev.offcache.perf.compare.CompareWriter;
import dev.offcache.perf.compare.ResultComparison;
import dev.offcache.perf.jmh.JmhResultReader;
import dev.offcache.perf.pairing.SuiteResults;

/**
 * {@code offcache-perf compare}: the changes between two JMH result sets, with regressions flagged.
 */
@Command(name = "compare", mixinStandardHelpOptions = true,
    description = "Compares two JMH result files and writes compare.md; a regression is a worse score whose " +
        "99.9%% confidence interval does not overlap the baseline's.")
public final class CompareCommand implements Callable<Integer>
{
    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Option(names = "--baseline", required = true, paramLabel = "FILE", description = "Reference JMH results.")
    private Path baseline;

    @Option(names = "--candidate", required = true, paramLabel = "FILE", description = "New JMH results.")
    private Path candidate;

    @Option(names = "--out", required = true, paramLabel = "DIR", description = "Output directory.")
    private Path out;

    @Option(names = "--fail-on-regression", description = "Exit with code 3 when anything is flagged.")
    private boolean failOnRegression;

    @Override
    public Integer call() throws Exception
    {
        final List<Change> changes = ResultComparison.compare(JmhResultReader.read(baseline),
            JmhResultReader.read(candidate));
        final Path file = CompareWriter.write(baseline.toString(), candidate.toString(), changes, out);
        final List<Change> flagged = changes.stream().filter(Change::flagged).toList();
        for (final Change change : flagged)
        {
            spec.commandLine().getOut().println("[perf] " + SuiteResults.shorten(change.key()) + ": " +
                CompareWriter.describe(change));
        }
        spec.commandLine().getOut().println("[perf] compare: " + file + " (" + changes.size() + " benchmarks, " +
            flagged.size() + " flagged)");
        return failOnRegression && !flagged.isEmpty() ? OffcachePerf.EXIT_REGRESSION : 0;
    }
}
