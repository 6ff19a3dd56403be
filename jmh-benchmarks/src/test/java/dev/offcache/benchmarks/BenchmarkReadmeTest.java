package dev.offcache.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * The module README lists every suite: users pick suites from it, so a benchmark class missing there is a bug.
 */
class BenchmarkReadmeTest
{
    private static final Path SOURCES = Path.of("src", "main", "java", "dev", "offcache", "benchmarks");
    private static final Path README = Path.of("README.md");

    @Test
    void everyBenchmarkClassIsListedInTheReadme() throws IOException
    {
        final String readme = Files.readString(README, StandardCharsets.UTF_8);
        final List<String> suites = benchmarkClasses();
        assertTrue(suites.size() > 0, "no benchmark classes found under " + SOURCES.toAbsolutePath());
        final List<String> missing = suites.stream().filter(s -> !readme.contains("`" + s + "`")).toList();
        assertEquals(List.of(), missing, "add a row for each to the suite table of jmh-benchmarks/README.md " +
            "(name in backquotes, relative to dev.offcache.benchmarks)");
    }

    /** Classes with at least one {@code @Benchmark} method, as {@code area.ClassName}. */
    private static List<String> benchmarkClasses() throws IOException
    {
        try (Stream<Path> files = Files.walk(SOURCES))
        {
            return files.filter(f -> f.toString().endsWith(".java"))
                .filter(BenchmarkReadmeTest::hasBenchmarkMethod)
                .map(f -> SOURCES.relativize(f).toString().replace(f.getFileSystem().getSeparator(), ".")
                    .replaceAll("\\.java$", ""))
                .sorted()
                .toList();
        }
    }

    private static boolean hasBenchmarkMethod(final Path file)
    {
        try
        {
            return Files.readAllLines(file, StandardCharsets.UTF_8).stream()
                .anyMatch(line -> line.matches("\\s*@Benchmark(\\s.*)?"));
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }
}
