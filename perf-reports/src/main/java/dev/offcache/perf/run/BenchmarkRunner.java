package dev.offcache.perf.run;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/**
 * Runs {@code benchmarks.jar} as a child process with a profile's options, writing JMH's JSON results and its full
 * console output into the output directory and reporting progress line by line.
 */
public final class BenchmarkRunner
{
    /** File name of the JMH results in the output directory. */
    public static final String RESULT_FILE = "jmh-result.json";
    /** File name of JMH's console output in the output directory. */
    public static final String LOG_FILE = "jmh-output.log";

    private final Path java;
    private final Path jar;
    private final Profile profile;
    private final List<String> includes;
    private final List<String> extraArgs;
    private final Path outDir;

    /**
     * Creates a runner.
     *
     * @param java      the java executable for the JMH host JVM.
     * @param jar       {@code benchmarks.jar}.
     * @param profile   the profile.
     * @param includes  JMH benchmark regexes; empty runs everything.
     * @param extraArgs further JMH options, placed after the profile's (so they win), for example {@code -p}.
     * @param outDir    the output directory.
     */
    public BenchmarkRunner(final Path java, final Path jar, final Profile profile, final List<String> includes,
        final List<String> extraArgs, final Path outDir)
    {
        this.java = java;
        this.jar = jar;
        this.profile = profile;
        this.includes = List.copyOf(includes);
        this.extraArgs = List.copyOf(extraArgs);
        this.outDir = outDir;
    }

    /**
     * The command that lists the selected benchmarks with their parameters.
     *
     * @return the command line.
     */
    public List<String> listCommand()
    {
        final List<String> command = new ArrayList<>(List.of(java.toString(), "-jar", jar.toString()));
        command.addAll(extraArgs);
        command.add("-lp");
        command.addAll(includes);
        return command;
    }

    /**
     * The command that runs the benchmarks.
     *
     * @return the command line.
     */
    public List<String> runCommand()
    {
        final List<String> command = new ArrayList<>(List.of(java.toString(), "-jar", jar.toString()));
        command.addAll(profile.jmhArgs());
        command.addAll(extraArgs);
        command.addAll(List.of("-rf", "json", "-rff", resultFile().toString()));
        command.addAll(includes);
        return command;
    }

    /**
     * Where the JSON results go.
     *
     * @return the result file.
     */
    public Path resultFile()
    {
        return outDir.resolve(RESULT_FILE);
    }

    /**
     * Where JMH's console output goes.
     *
     * @return the log file.
     */
    public Path logFile()
    {
        return outDir.resolve(LOG_FILE);
    }

    /**
     * Lists what the run will measure.
     *
     * @return the plan.
     * @throws IOException when the listing cannot run or fails.
     * @throws InterruptedException when interrupted while waiting.
     */
    public BenchmarkPlan plan() throws IOException, InterruptedException
    {
        final Process process = new ProcessBuilder(listCommand()).redirectErrorStream(true).start();
        final List<String> lines;
        try (BufferedReader reader = new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8)))
        {
            lines = reader.lines().collect(Collectors.toList());
        }
        final int exit = process.waitFor();
        if (exit != 0)
        {
            throw new IOException("listing the benchmarks failed (exit " + exit + "): " + quote(listCommand()) + "\n" +
                String.join("\n", lines));
        }
        return BenchmarkPlan.parse(lines);
    }

    /**
     * Runs the benchmarks, copying JMH's output into the log and passing progress lines on.
     *
     * @param tracker  turns JMH's output into progress lines.
     * @param progress receives the progress lines.
     * @return the exit code of {@code benchmarks.jar}.
     * @throws IOException when the process cannot start or the log cannot be written.
     * @throws InterruptedException when interrupted while waiting (the child is destroyed).
     */
    public int run(final ProgressTracker tracker, final Consumer<String> progress)
        throws IOException, InterruptedException
    {
        Files.createDirectories(outDir);
        Files.deleteIfExists(resultFile());
        final Process process = new ProcessBuilder(runCommand()).redirectErrorStream(true).start();
        try (BufferedReader reader = new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
            Writer log = Files.newBufferedWriter(logFile(), StandardCharsets.UTF_8))
        {
            String line;
            while ((line = reader.readLine()) != null)
            {
                log.write(line);
                log.write('\n');
                final String message = tracker.onLine(line);
                if (message != null)
                {
                    log.flush();
                    progress.accept(message);
                }
            }
            return process.waitFor();
        }
        finally
        {
            if (process.isAlive())
            {
                process.destroyForcibly();
            }
        }
    }

    /**
     * A command line as a shell would need it typed.
     *
     * @param command the arguments.
     * @return the quoted command.
     */
    public static String quote(final List<String> command)
    {
        return command.stream()
            .map(arg -> arg.isEmpty() || arg.matches(".*[\\s'\"$*?|&;<>()\\\\].*") ?
                "'" + arg.replace("'", "'\\''") + "'" : arg)
            .collect(Collectors.joining(" "));
    }
}
