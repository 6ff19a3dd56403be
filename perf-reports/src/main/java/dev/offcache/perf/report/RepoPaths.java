package dev.offcache.perf.report;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Paths as reports and recorded commands show them: relative to the repository root when they lie inside it, so a
 * command in a committed report reruns on any checkout and shows nothing of the machine that produced it.
 */
public final class RepoPaths
{
    private RepoPaths()
    {
    }

    /**
     * The repository root: the working directory or the nearest directory above it that holds both
     * {@code jmh-benchmarks} and {@code perf-reports}; the working directory when there is none.
     *
     * @return the absolute root.
     */
    public static Path root()
    {
        final Path cwd = Path.of("").toAbsolutePath().normalize();
        for (Path dir = cwd; dir != null; dir = dir.getParent())
        {
            if (Files.isDirectory(dir.resolve("jmh-benchmarks")) && Files.isDirectory(dir.resolve("perf-reports")))
            {
                return dir;
            }
        }
        return cwd;
    }

    /**
     * A path relative to the repository root when it lies inside it, else as given.
     *
     * @param path a path.
     * @return the text to show.
     */
    public static String display(final Path path)
    {
        return display(path, root());
    }

    /**
     * A path relative to a root when it lies inside it, else as given.
     *
     * @param path a path.
     * @param root the root.
     * @return the text to show ({@code .} for the root itself).
     */
    public static String display(final Path path, final Path root)
    {
        final Path absolute = path.toAbsolutePath().normalize();
        if (!absolute.startsWith(root))
        {
            return path.toString();
        }
        final String relative = root.relativize(absolute).toString();
        return relative.isEmpty() ? "." : relative;
    }
}
