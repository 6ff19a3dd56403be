package dev.offcache.perf.report;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The paths of recorded commands as a re-rendered report shows them: a run records its commands with the paths it
 * was given (a temporary output directory, measurement files in a temporary directory), which mean nothing on another
 * checkout. Rendered into a report directory, the run's output directory becomes that directory and a measurement
 * file becomes its copy in {@code measurements/} there, both relative to the repository root ({@link RepoPaths}), so
 * every command in the report runs from the root as shown. Anything else is left as recorded.
 */
public final class RecordedPaths
{
    private static final Pattern OUT = Pattern.compile("(?:^|\\s)--out\\s+(\\S+)");
    private static final Pattern ABSOLUTE = Pattern.compile("(?<=^|\\s|=)(/[^\\s'\"]+)");

    private final String recordedOut;
    private final Path reportDir;

    /**
     * Paths of one run rendered into a report directory.
     *
     * @param rerunCommand the run's recorded command (its {@code --out} is the directory it wrote), or null.
     * @param reportDir    the report directory it is rendered into now.
     */
    public RecordedPaths(final String rerunCommand, final Path reportDir)
    {
        String out = null;
        if (rerunCommand != null)
        {
            final Matcher matcher = OUT.matcher(rerunCommand);
            if (matcher.find())
            {
                out = stripSlash(matcher.group(1));
            }
        }
        this.recordedOut = out;
        this.reportDir = reportDir;
    }

    /**
     * A recorded command with the run's output directory and measurement files at their places in the report
     * directory, relative to the repository root.
     *
     * @param command the recorded command, or null.
     * @return the command to show, or null.
     */
    public String relocate(final String command)
    {
        if (command == null)
        {
            return null;
        }
        final String shownDir = RepoPaths.display(reportDir);
        final Matcher matcher = ABSOLUTE.matcher(command);
        final StringBuilder out = new StringBuilder();
        while (matcher.find())
        {
            matcher.appendReplacement(out, Matcher.quoteReplacement(relocatePath(matcher.group(1), shownDir)));
        }
        matcher.appendTail(out);
        return out.toString();
    }

    /**
     * Several recorded commands relocated.
     *
     * @param commands the commands.
     * @return the relocated commands, in order.
     */
    public List<String> relocateAll(final List<String> commands)
    {
        final List<String> out = new ArrayList<>(commands.size());
        commands.forEach(c -> out.add(relocate(c)));
        return out;
    }

    private String relocatePath(final String path, final String shownDir)
    {
        final String bare = stripSlash(path);
        if (recordedOut != null && recordedOut.startsWith("/"))
        {
            if (bare.equals(recordedOut))
            {
                return shownDir;
            }
            if (bare.startsWith(recordedOut + "/"))
            {
                return shownDir + bare.substring(recordedOut.length());
            }
        }
        final Path name = Path.of(bare).getFileName();
        if (name != null && name.toString().endsWith(".json"))
        {
            final Path copy = reportDir.resolve("measurements").resolve(name.toString());
            if (Files.isRegularFile(copy))
            {
                return RepoPaths.display(copy);
            }
        }
        return path;
    }

    private static String stripSlash(final String path)
    {
        return path.length() > 1 && path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
    }
}
