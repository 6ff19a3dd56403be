package dev.offcache.tools;

import java.io.PrintWriter;
import java.io.StringWriter;

import picocli.CommandLine;

/**
 * One run of a tool's command line in the test's JVM: its exit status and what it wrote to stdout and stderr.
 *
 * @param status the exit status.
 * @param out    stdout.
 * @param err    stderr.
 */
public record ToolRun(int status, String out, String err)
{
    /**
     * Runs a command line.
     *
     * @param commandLine the tool's command line.
     * @param args        its arguments.
     */
    public ToolRun(final CommandLine commandLine, final String... args)
    {
        this(commandLine, new StringWriter(), new StringWriter(), args);
    }

    private ToolRun(final CommandLine commandLine, final StringWriter out, final StringWriter err,
        final String... args)
    {
        this(commandLine.setOut(new PrintWriter(out)).setErr(new PrintWriter(err)).execute(args),
            out.toString(), err.toString());
    }
}
