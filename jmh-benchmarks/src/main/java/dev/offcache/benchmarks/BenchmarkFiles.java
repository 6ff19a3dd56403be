package dev.offcache.benchmarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * The benchmarks' scratch files: a trial's directory removed at tear-down.
 */
public final class BenchmarkFiles
{
    private BenchmarkFiles()
    {
    }

    /**
     * Deletes a directory and everything below it, deepest first; a file gone already is no failure.
     *
     * @param root the directory.
     * @throws IOException when a file cannot be deleted or the tree cannot be walked.
     */
    public static void deleteTree(final Path root) throws IOException
    {
        try (Stream<Path> files = Files.walk(root))
        {
            for (final Path file : files.sorted(Comparator.reverseOrder()).toList())
            {
                Files.deleteIfExists(file);
            }
        }
        catch (final UncheckedIOException ex)
        {
            throw ex.getCause();
        }
    }
}
