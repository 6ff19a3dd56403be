package dev.offcache.perf.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.UnaryOperator;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import dev.offcache.perf.jmh.JmhResult;
import dev.offcache.perf.jmh.JmhResultReader;
import dev.offcache.perf.measure.MeasurementFile;
import dev.offcache.perf.report.MachineInfo;
import dev.offcache.perf.report.RecordedPaths;
import dev.offcache.perf.report.RepoPaths;
import dev.offcache.perf.report.ReportInput;
import dev.offcache.perf.report.ReportWriter;
import dev.offcache.perf.report.RunInfo;
import dev.offcache.perf.run.Profile;

/**
 * {@code offcache-perf report}: writes the report of an existing JMH JSON result file.
 */
@Command(name = "report", mixinStandardHelpOptions = true,
    description = "Writes report.md and charts/*.png from an existing JMH JSON result file (-rf json) and/or " +
        "measurement files (results not from JMH).")
public final class ReportCommand implements Callable<Integer>
{
    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Option(names = "--json", paramLabel = "FILE",
        description = "JMH results (-rf json); measurement files in measurements/ beside it are read too.")
    private Path json;

    @Option(names = "--measurements", paramLabel = "FILE",
        description = "A measurement file (results not from JMH, docs/perf-reports.md); repeatable. Copied into " +
            "OUT/measurements/.")
    private List<Path> measurementFiles = new ArrayList<>();

    @Option(names = "--out", required = true, paramLabel = "DIR", description = "Output directory.")
    private Path out;

    @Option(names = "--title", paramLabel = "TEXT", description = "Report title.",
        defaultValue = "offcache benchmark report")
    private String title;

    @Option(names = "--command", paramLabel = "TEXT",
        description = "The command that reruns what the report shows, from the repository root (default: from " +
            "run-info.json beside the file).")
    private String command;

    @Option(names = "--note", paramLabel = "TEXT", description = "A note for the top of the report (repeatable).")
    private List<String> notes = new ArrayList<>();

    @Option(names = "--skip-if-missing",
        description = "Succeed with a message when the JSON file does not exist (the build's smoke report).")
    private boolean skipIfMissing;

    @Override
    public Integer call() throws Exception
    {
        if (json == null && measurementFiles.isEmpty())
        {
            throw new CommandLine.ParameterException(spec.commandLine(),
                "Missing input: give --json FILE (JMH results) and/or --measurements FILE");
        }
        if (skipIfMissing && json != null && !Files.exists(json))
        {
            spec.commandLine().getOut().println("[perf] no results at " + json + " (was the smoke run skipped with " +
                "-Djmh.smoke.skip=true?): skipping the report");
            return 0;
        }
        final List<JmhResult> results = json == null ? List.of() : JmhResultReader.read(json);
        final List<Path> measurementPaths = new ArrayList<>(measurementFiles);
        if (json != null)
        {
            final Path dir = json.toAbsolutePath().getParent();
            if (dir != null)
            {
                measurementPaths.addAll(MeasurementInputs.in(dir));
            }
        }
        final List<MeasurementFile> measurements = MeasurementInputs.read(measurementPaths);
        final RunInfo runInfo = json == null ? null : RunInfo.besides(json);
        final MachineInfo machine = runInfo == null ? MachineInfo.current() : runInfo.machine();
        final String machineNote = runInfo == null ?
            (json == null ? "The machine the report was written on; each measurement file below names its own." :
                "No run-info.json came with the results, so the machine below is the one the report was written on.") :
            "Recorded by `offcache-perf run` (profile " + runInfo.profile() + ", started " + runInfo.startedAt() +
                ", " + runInfo.elapsedSeconds() + " s).";
        // copied first: a recorded path is shown as its copy in this directory when there is one
        final List<MeasurementFile> copies = MeasurementInputs.copyInto(measurements, out);
        // re-rendered in place (the results lie in the report directory), the run's output directory is this one
        final boolean inPlace = json != null && out.toAbsolutePath().normalize().equals(
            json.toAbsolutePath().normalize().getParent());
        final String recordedRun = runInfo == null ? null : runInfo.rerunCommand();
        final UnaryOperator<String> shownAs = inPlace ? new RecordedPaths(recordedRun, out)::relocate :
            UnaryOperator.identity();
        final String recorded = runInfo == null ? null : shownAs.apply(runInfo.rerunCommand());
        final String rerun = command != null ? command : recorded;
        final String jmhCommand = runInfo == null ? null : shownAs.apply(runInfo.command());
        final List<MeasurementFile> shown = copies.stream().map(f -> new MeasurementFile(f.source(), f.suite(),
            f.title(), shownAs.apply(f.command()), f.machine(), f.loadAtStart(), f.loadAtEnd(), f.startedAt(),
            f.notes(), f.measurements())).toList();
        final List<String> allNotes = new ArrayList<>(notes);
        if (runInfo != null && Profile.SMOKE.cliName().equals(runInfo.profile()))
        {
            allNotes.add(Profile.SMOKE.reportNote());
        }
        final ReportWriter.Written written = ReportWriter.write(new ReportInput(title,
            json == null ? null : RepoPaths.display(json), rerun, jmhCommand, machine, machineNote,
            runInfo == null ? null : runInfo.loadAfter(), results, shown,
            allNotes, runInfo == null ? List.of() : runInfo.planned()), out);
        spec.commandLine().getOut().println("[perf] report: " + written.markdown() + " (" + results.size() +
            " results, " + written.measurementSuites().size() +
            (written.measurementSuites().size() == 1 ? " measurement file, " : " measurement files, ") +
            written.pairCount() +
            " pairs, " + written.charts().size() + " charts)");
        return 0;
    }
}
