package dev.offcache.perf.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import dev.offcache.perf.jmh.JmhResult;
import dev.offcache.perf.jmh.JmhResultReader;
import dev.offcache.perf.report.MachineInfo;
import dev.offcache.perf.report.ReportInput;
import dev.offcache.perf.report.ReportWriter;
import dev.offcache.perf.report.RunInfo;
import dev.offcache.perf.run.Profile;

/**
 * {@code offcache-perf report}: writes the report of an existing JMH JSON result file.
 */
@Command(name = "report", mixinStandardHelpOptions = true,
    description = "Writes report.md and charts/*.png from an existing JMH JSON result file (-rf json).")
public final class ReportCommand implements Callable<Integer>
{
    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Option(names = "--json", required = true, paramLabel = "FILE", description = "JMH results (-rf json).")
    private Path json;

    @Option(names = "--out", required = true, paramLabel = "DIR", description = "Output directory.")
    private Path out;

    @Option(names = "--title", paramLabel = "TEXT", description = "Report title.",
        defaultValue = "offcache benchmark report")
    private String title;

    @Option(names = "--command", paramLabel = "TEXT",
        description = "The command that produced the results (default: from run-info.json beside the file).")
    private String command;

    @Option(names = "--note", paramLabel = "TEXT", description = "A note for the top of the report (repeatable).")
    private List<String> notes = new ArrayList<>();

    @Option(names = "--skip-if-missing",
        description = "Succeed with a message when the JSON file does not exist (the build's smoke report).")
    private boolean skipIfMissing;

    @Override
    public Integer call() throws Exception
    {
        if (skipIfMissing && !Files.exists(json))
        {
            spec.commandLine().getOut().println("[perf] no results at " + json + " (was the smoke run skipped with " +
                "-Djmh.smoke.skip=true?): skipping the report");
            return 0;
        }
        final List<JmhResult> results = JmhResultReader.read(json);
        final RunInfo runInfo = RunInfo.besides(json);
        final MachineInfo machine = runInfo == null ? MachineInfo.current() : runInfo.machine();
        final String machineNote = runInfo == null ?
            "No run-info.json came with the results, so the machine below is the one the report was written on." :
            "Recorded by `offcache-perf run` (profile " + runInfo.profile() + ", started " + runInfo.startedAt() +
                ", " + runInfo.elapsedSeconds() + " s).";
        final String usedCommand = command != null ? command : runInfo == null ? null : runInfo.command();
        final List<String> allNotes = new ArrayList<>(notes);
        if (runInfo != null && Profile.SMOKE.cliName().equals(runInfo.profile()))
        {
            allNotes.add(Profile.SMOKE.reportNote());
        }
        final ReportWriter.Written written = ReportWriter.write(new ReportInput(title, json.normalize().toString(),
            usedCommand, machine, machineNote, runInfo == null ? null : runInfo.loadAfter(), results, allNotes,
            runInfo == null ? List.of() : runInfo.planned()), out);
        spec.commandLine().getOut().println("[perf] report: " + written.markdown() + " (" + results.size() +
            " results, " + written.suites().stream().mapToInt(s -> s.pairs().size()).sum() + " pairs, " +
            written.charts().size() + " charts)");
        return 0;
    }
}
