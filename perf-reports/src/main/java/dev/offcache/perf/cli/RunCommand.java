package dev.offcache.perf.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import dev.offcache.perf.jmh.JmhResult;
import dev.offcache.perf.jmh.JmhResultReader;
import dev.offcache.perf.measure.MeasurementFile;
import dev.offcache.perf.pairing.SuiteResults;
import dev.offcache.perf.report.MachineInfo;
import dev.offcache.perf.report.ReportInput;
import dev.offcache.perf.report.RepoPaths;
import dev.offcache.perf.report.ReportWriter;
import dev.offcache.perf.report.RunInfo;
import dev.offcache.perf.run.BenchmarkPlan;
import dev.offcache.perf.run.BenchmarkRunner;
import dev.offcache.perf.run.Profile;
import dev.offcache.perf.run.ProgressTracker;
import dev.offcache.perf.run.RunEstimate;

/**
 * {@code offcache-perf run}: runs a profile of the benchmark suites from {@code benchmarks.jar} and writes the raw
 * results, the JMH log, the run information and the report into one directory.
 */
@Command(name = "run", mixinStandardHelpOptions = true,
    description = "Runs benchmarks.jar with a profile's JMH options, shows progress, and writes jmh-result.json, " +
        "jmh-output.log, run-info.json, report.md, charts/ and measurements/ into --out.")
public final class RunCommand implements Callable<Integer>
{
    private static final long LOCK_RETRY_MAX_SECONDS = 10;

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Option(names = "--profile", paramLabel = "NAME", defaultValue = "quick", converter = ProfileConverter.class,
        description = "smoke | quick | full (default: ${DEFAULT-VALUE}).")
    private Profile profile;

    @Option(names = "--include", paramLabel = "REGEX",
        description = "Benchmarks to run, as JMH regexes (repeatable; default: all).")
    private List<String> includes = new ArrayList<>();

    @Option(names = "--out", required = true, paramLabel = "DIR", description = "Output directory.")
    private Path out;

    @Option(names = "--jar", paramLabel = "FILE",
        description = "benchmarks.jar (default: jmh-benchmarks/target/benchmarks.jar found from here).")
    private Path jar;

    @Option(names = "--java", paramLabel = "FILE", description = "java executable (default: this JVM's).")
    private Path java;

    @Option(names = "--jmh-args", paramLabel = "ARGS",
        description = "More JMH options, space-separated, after the profile's, e.g. \"-p size=1048576\".")
    private String jmhArgs;

    @Option(names = "--title", paramLabel = "TEXT", description = "Report title.")
    private String title;

    @Option(names = "--note", paramLabel = "TEXT", description = "A note for the top of the report (repeatable).")
    private List<String> userNotes = new ArrayList<>();

    @Option(names = "--lock-wait", paramLabel = "SECONDS", defaultValue = "0",
        description = "When another JMH run holds the machine's JMH lock, retry for up to this long (default: 0).")
    private long lockWaitSeconds;

    @Option(names = "--measurements", paramLabel = "FILE",
        description = "A measurement file (results not from JMH, docs/perf-reports.md) to fold into the report; " +
            "repeatable. Checked before the benchmarks start, copied into OUT/measurements/.")
    private List<Path> measurementFiles = new ArrayList<>();

    @Option(names = "--dry-run", description = "List what would run and how long it takes at least; run nothing.")
    private boolean dryRun;

    @Override
    public Integer call() throws Exception
    {
        final PrintWriter console = spec.commandLine().getOut();
        final Path benchmarksJar = jar != null ? requireFile(jar) : locateBenchmarksJar();
        final Path javaExecutable = java != null ? requireFile(java) :
            Path.of(System.getProperty("java.home"), "bin", "java");
        final List<String> extra = jmhArgs == null || jmhArgs.isBlank() ? List.of() :
            Arrays.asList(jmhArgs.trim().split("\\s+"));
        // Read the measurement files first: a typo in one must not surface after an hour of benchmarks.
        final List<MeasurementFile> measurements = MeasurementInputs.read(measurementFiles);
        final BenchmarkRunner runner = new BenchmarkRunner(javaExecutable, benchmarksJar, profile, includes, extra,
            out);

        final BenchmarkPlan plan = runner.plan();
        if (plan.isEmpty())
        {
            throw new IllegalArgumentException("no benchmark in " + benchmarksJar + " matches " +
                (includes.isEmpty() ? "(everything)" : String.join(" ", includes)));
        }
        final List<String> effectiveArgs = new ArrayList<>(profile.jmhArgs());
        effectiveArgs.addAll(extra);
        final String shownCommand = BenchmarkRunner.quote(shownRunCommand(runner, javaExecutable, benchmarksJar));
        final String rerun = rerunCommand(benchmarksJar);
        console.println("[perf] profile " + profile.cliName() + ": " + profile.description());
        console.println("[perf] " + plan.suites().size() + " suites, " + plan.benchmarks().size() +
            " benchmarks, " + plan.expectedRuns() + " runs (parameter combinations)");
        console.println("[perf] at least " + RunEstimate.of(effectiveArgs, plan.expectedRuns()).describe());
        console.println("[perf] rerun: " + rerun);
        console.println("[perf] command: " + shownCommand);
        if (dryRun)
        {
            plan.suites().forEach(suite -> console.println("[perf]   " + SuiteResults.shorten(suite) + ": " +
                plan.runsOf(suite) + (plan.runsOf(suite) == 1 ? " run" : " runs")));
            console.println("[perf] dry run: nothing was run");
            console.flush();
            return 0;
        }
        Files.createDirectories(out);
        console.println("[perf] JMH output: " + runner.logFile());
        console.flush();

        MachineInfo machine = MachineInfo.current();
        Instant started = Instant.now();
        ProgressTracker tracker = new ProgressTracker(plan, System::nanoTime);
        int exit = runner.run(tracker, line -> printFlushed(console, line));
        final long waitUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(lockWaitSeconds);
        final long retrySeconds = Math.max(1, Math.min(LOCK_RETRY_MAX_SECONDS, lockWaitSeconds));
        while (exit != 0 && tracker.runsStarted() == 0 && jmhLockBusy(runner.logFile()) &&
            System.nanoTime() < waitUntil)
        {
            // One JMH per machine at a time (/tmp/jmh.lock): another run holds it; wait rather than compete.
            printFlushed(console, "[perf] another JMH run holds the JMH lock; retrying in " + retrySeconds + " s");
            Thread.sleep(TimeUnit.SECONDS.toMillis(retrySeconds));
            machine = MachineInfo.current();
            started = Instant.now();
            tracker = new ProgressTracker(plan, System::nanoTime);
            exit = runner.run(tracker, line -> printFlushed(console, line));
        }
        final Instant finished = Instant.now();
        console.println("[perf] benchmarks.jar finished with exit code " + exit + " after " + tracker.elapsed() +
            " (" + tracker.runsStarted() + " runs, " + tracker.failures() + " failed)");

        final RunInfo runInfo = new RunInfo(profile.cliName(), rerun, shownCommand,
            started.truncatedTo(ChronoUnit.SECONDS).toString(), finished.truncatedTo(ChronoUnit.SECONDS).toString(),
            finished.getEpochSecond() - started.getEpochSecond(), exit, machine, MachineInfo.currentLoadAverage(),
            plan.benchmarks());
        runInfo.write(out.resolve(RunInfo.FILE_NAME));

        if (exit != 0 && (!Files.exists(runner.resultFile()) || Files.size(runner.resultFile()) == 0))
        {
            throw new IllegalStateException("benchmarks.jar exited with code " + exit + " without results: " +
                firstError(runner.logFile()) + " (full output: " + runner.logFile() + ")");
        }
        final List<JmhResult> results = JmhResultReader.read(runner.resultFile());
        final List<String> notes = new ArrayList<>(userNotes);
        if (profile.reportNote() != null)
        {
            notes.add(profile.reportNote());
        }
        if (exit != 0 || tracker.failures() > 0)
        {
            notes.add("benchmarks.jar exited with code " + exit + " and " + tracker.failures() +
                " benchmark runs failed; see " + BenchmarkRunner.LOG_FILE + ".");
        }
        final ReportWriter.Written written = ReportWriter.write(new ReportInput(
            title != null ? title : "offcache benchmark report (profile " + profile.cliName() + ")",
            RepoPaths.display(runner.resultFile()), runInfo.rerunCommand(), runInfo.command(), machine,
            "Measured on this machine by `offcache-perf run` (profile " + profile.cliName() + ", started " +
                runInfo.startedAt() + ", " + runInfo.elapsedSeconds() + " s).",
            runInfo.loadAfter(), results, MeasurementInputs.copyInto(measurements, out), notes, plan.benchmarks()),
            out);
        console.println("[perf] report: " + written.markdown() + " (" + results.size() + " results, " +
            written.charts().size() + " charts)");
        if (exit != 0 || tracker.failures() > 0)
        {
            throw new IllegalStateException("benchmarks.jar exited with code " + exit + " and " + tracker.failures() +
                " benchmark runs failed (the report has the others); see " + runner.logFile());
        }
        return 0;
    }

    /** The JMH command with the paths a reader can use: relative to the repository root, {@code java} for ours. */
    private List<String> shownRunCommand(final BenchmarkRunner runner, final Path javaExecutable,
        final Path benchmarksJar)
    {
        final String javaShown = java == null ? "java" : RepoPaths.display(javaExecutable);
        final List<String> shown = new ArrayList<>();
        for (final String arg : runner.runCommand())
        {
            if (arg.equals(javaExecutable.toString()))
            {
                shown.add(javaShown);
            }
            else if (arg.equals(benchmarksJar.toString()))
            {
                shown.add(RepoPaths.display(benchmarksJar));
            }
            else if (arg.equals(runner.resultFile().toString()))
            {
                shown.add(RepoPaths.display(runner.resultFile()));
            }
            else
            {
                shown.add(arg);
            }
        }
        return shown;
    }

    /** This command line as typed from the repository root: what reruns the run, paths relative to the root. */
    private String rerunCommand(final Path benchmarksJar)
    {
        final List<String> command = new ArrayList<>(List.of("perf-reports/bin/offcache-perf", "run", "--profile",
            profile.cliName()));
        includes.forEach(include -> command.addAll(List.of("--include", include)));
        if (jmhArgs != null && !jmhArgs.isBlank())
        {
            command.addAll(List.of("--jmh-args", jmhArgs.trim()));
        }
        if (jar != null)
        {
            command.addAll(List.of("--jar", RepoPaths.display(benchmarksJar)));
        }
        if (java != null)
        {
            command.addAll(List.of("--java", RepoPaths.display(java)));
        }
        measurementFiles.forEach(file -> command.addAll(List.of("--measurements", RepoPaths.display(file))));
        if (title != null)
        {
            command.addAll(List.of("--title", title));
        }
        command.addAll(List.of("--out", RepoPaths.display(out)));
        return BenchmarkRunner.quote(command);
    }

    private static void printFlushed(final PrintWriter console, final String line)
    {
        console.println(line);
        console.flush();
    }

    static boolean jmhLockBusy(final Path log) throws IOException
    {
        return Files.exists(log) && Files.readAllLines(log, StandardCharsets.UTF_8).stream()
            .anyMatch(l -> l.contains("Unable to acquire the JMH lock"));
    }

    /** JMH's first error line (for example "Unable to acquire the JMH lock"), else the log's last line. */
    static String firstError(final Path log) throws IOException
    {
        final List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
        return lines.stream().filter(l -> l.startsWith("ERROR") || l.contains("Exception")).findFirst()
            .orElse(lines.isEmpty() ? "(no output)" : lines.get(lines.size() - 1)).trim();
    }

    private static Path requireFile(final Path file)
    {
        if (!Files.isRegularFile(file))
        {
            throw new IllegalArgumentException("no such file: " + file);
        }
        return file;
    }

    private static Path locateBenchmarksJar() throws URISyntaxException
    {
        final List<Path> candidates = new ArrayList<>(List.of(
            Path.of("jmh-benchmarks", "target", "benchmarks.jar"),
            Path.of("..", "jmh-benchmarks", "target", "benchmarks.jar")));
        // Beside perf-reports/target/offcache-perf.jar (or perf-reports/target/classes) in a source tree.
        final Path self = Path.of(RunCommand.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        if (self.getParent() != null && self.getParent().getParent() != null &&
            self.getParent().getParent().getParent() != null)
        {
            candidates.add(self.getParent().getParent().getParent()
                .resolve("jmh-benchmarks").resolve("target").resolve("benchmarks.jar"));
        }
        for (final Path candidate : candidates)
        {
            if (Files.isRegularFile(candidate))
            {
                return candidate.toAbsolutePath().normalize();
            }
        }
        throw new IllegalArgumentException("benchmarks.jar not found (looked at " + candidates + "); build it with " +
            "./mvnw -B -pl jmh-benchmarks -am package -DskipTests, or pass --jar");
    }

    /**
     * Reads {@code --profile}, naming the known profiles when the name is unknown.
     */
    public static final class ProfileConverter implements CommandLine.ITypeConverter<Profile>
    {
        @Override
        public Profile convert(final String value)
        {
            try
            {
                return Profile.byName(value);
            }
            catch (final IllegalArgumentException ex)
            {
                throw new CommandLine.TypeConversionException(ex.getMessage());
            }
        }
    }
}
