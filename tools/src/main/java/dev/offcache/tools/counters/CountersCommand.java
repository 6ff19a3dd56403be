package dev.offcache.tools.counters;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.regex.Pattern;

import dev.offcache.range.metrics.CountersFile;
import dev.offcache.tools.ToolCommandLine;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code offcache-counters}: prints an offcache counters file ({@link CountersFile}: the L2 server's
 * {@code --server-counters-file}, an engine's {@code OFFCACHE_RANGE_COUNTERS_FILE}, an adapter JVM's
 * {@code offcache.counters.file}) as {@code name value} lines, read from the mapping while its process runs (or the
 * last values after it stopped). Reads only; the file stays as it is.
 */
@Command(name = "offcache-counters", mixinStandardHelpOptions = true,
    versionProvider = ToolCommandLine.Version.class,
    description = "Prints the counters of an offcache counters file, one 'name value' line each, in the order " +
        "they were registered.")
public final class CountersCommand implements Runnable
{
    @Parameters(index = "0", description = "The counters file.")
    Path file;

    @Option(names = "--match", description = "Only the counters whose name contains this regular expression.")
    Pattern match;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /**
     * Runs the command line and exits with its status.
     *
     * @param args the arguments.
     */
    public static void main(final String[] args)
    {
        System.exit(commandLine().execute(args));
    }

    /**
     * The command line, for tests and embedding: {@code execute} returns the exit status (2 for a missing file or
     * one that is not a counters file).
     *
     * @return a new command line.
     */
    public static CommandLine commandLine()
    {
        return ToolCommandLine.of(new CountersCommand(), "offcache-counters");
    }

    @Override
    public void run()
    {
        if (!Files.isRegularFile(file))
        {
            throw new IllegalArgumentException("no counters file at " + file);
        }
        final Map<String, Long> counters = CountersFile.read(file);
        final PrintWriter out = spec.commandLine().getOut();
        for (final Map.Entry<String, Long> counter : counters.entrySet())
        {
            if (match == null || match.matcher(counter.getKey()).find())
            {
                out.println(counter.getKey() + " " + counter.getValue());
            }
        }
        out.flush();
    }
}
