package dev.offcache.perf.cli;

import java.io.IOException;
import java.io.PrintWriter;

import picocli.CommandLine;
import picocli.CommandLine.Command;

import dev.offcache.perf.jmh.ResultFileException;

/**
 * {@code offcache-perf}: runs the offcache benchmark suites and turns JMH results into reports and comparisons.
 *
 * <p>Exit codes: 0 success, 1 the work failed (unusable input file, benchmark run failed), 2 bad command line,
 * 3 {@code compare --fail-on-regression} found a regression.
 */
@Command(
    name = "offcache-perf",
    mixinStandardHelpOptions = true,
    version = "offcache-perf 0.1.0",
    description = "Runs the offcache JMH suites and writes reports: offcache against its baselines, with ratios and " +
        "charts, and comparisons of two result sets with regression flags.",
    subcommands = {RunCommand.class, ReportCommand.class, CompareCommand.class, CommandLine.HelpCommand.class})
public final class OffcachePerf implements Runnable
{
    /** Exit code when the work failed. */
    public static final int EXIT_FAILED = 1;
    /** Exit code when a comparison found a regression and was asked to fail on it. */
    public static final int EXIT_REGRESSION = 3;

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    /**
     * Runs the tool and exits with its exit code.
     *
     * @param args command-line arguments.
     */
    public static void main(final String[] args)
    {
        // Charts are drawn off-screen; without this, AWT may look for a display that a server does not have.
        System.setProperty("java.awt.headless", "true");
        System.exit(commandLine().execute(args));
    }

    /**
     * The command line, with errors in the work reported as one clear line instead of a stack trace.
     *
     * @return a new command line.
     */
    public static CommandLine commandLine()
    {
        final CommandLine commandLine = new CommandLine(new OffcachePerf());
        commandLine.setExecutionExceptionHandler((ex, cmd, parseResult) ->
        {
            final PrintWriter err = cmd.getErr();
            if (ex instanceof ResultFileException || ex instanceof IllegalArgumentException ||
                ex instanceof IOException || ex instanceof IllegalStateException)
            {
                err.println("offcache-perf: error: " + ex.getMessage());
            }
            else
            {
                err.println("offcache-perf: unexpected failure:");
                ex.printStackTrace(err);
            }
            err.flush();
            return EXIT_FAILED;
        });
        return commandLine;
    }

    @Override
    public void run()
    {
        throw new CommandLine.ParameterException(spec.commandLine(), "a subcommand is needed: run, report or compare");
    }
}
