package dev.offcache.range.docs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The package table of {@code docs/architecture.md} names exactly the packages of every module's {@code src/main}
 * tree, and each of those packages says what it holds in a {@code package-info.java} (none left behind in a
 * directory whose classes moved away). Run from a module's directory, as Surefire does: the repository is its parent.
 */
class PackageTableTest
{
    private static final Path REPO = Path.of("..");
    private static final Pattern PACKAGES = Pattern.compile("dev\\.offcache(?:\\.[a-z0-9]+)*(?:\\.\\{([^}]*)})?");

    @Test
    void theTableNamesEveryPackageOfTheMainTrees() throws IOException
    {
        final Set<String> code = new TreeSet<>();
        final List<String> undocumented = new ArrayList<>();
        final List<String> orphaned = new ArrayList<>();
        try (Stream<Path> modules = Files.list(REPO))
        {
            for (final Path main : modules.map((m) -> m.resolve("src/main/java")).filter(Files::isDirectory).toList())
            {
                try (Stream<Path> dirs = Files.walk(main))
                {
                    for (final Path dir : dirs.filter(Files::isDirectory).toList())
                    {
                        final String name = main.relativize(dir).toString().replace(dir.getFileSystem()
                            .getSeparator(), ".");
                        final boolean hasInfo = Files.exists(dir.resolve("package-info.java"));
                        final Path scala = main.resolveSibling("scala").resolve(main.relativize(dir));
                        if (holdsClasses(dir) || holdsClasses(scala))
                        {
                            code.add(name);
                            if (!hasInfo)
                            {
                                undocumented.add(name);
                            }
                        }
                        else if (hasInfo)
                        {
                            orphaned.add(name);
                        }
                    }
                }
            }
        }
        assertTrue(code.size() > 50, () -> "found the main trees: " + code);
        assertEquals(List.of(), undocumented, "packages without a package-info.java");
        assertEquals(List.of(), orphaned, "a package-info.java with no class beside it");
        final Set<String> table = documented(Files.readString(REPO.resolve("docs/architecture.md")));
        final Set<String> missing = new TreeSet<>(code);
        missing.removeAll(table);
        final Set<String> gone = new TreeSet<>(table);
        gone.removeAll(code);
        assertEquals(Set.of(), missing, "packages of the src/main trees that docs/architecture.md's table lacks");
        assertEquals(Set.of(), gone, "packages docs/architecture.md's table names that no src/main tree has");
    }

    /** The packages named in the table that follows the line "| module | packages |", braces expanded. */
    static Set<String> documented(final String page)
    {
        final Set<String> named = new TreeSet<>();
        boolean inTable = false;
        for (final String line : page.split("\n"))
        {
            if (line.startsWith("| module | packages |"))
            {
                inTable = true;
                continue;
            }
            if (inTable && !line.startsWith("|"))
            {
                break;
            }
            if (inTable && !line.startsWith("|---"))
            {
                final String cell = line.substring(line.indexOf('|', 1) + 1);
                final Matcher m = PACKAGES.matcher(cell);
                while (m.find())
                {
                    if (m.group(1) == null)
                    {
                        named.add(m.group());
                        continue;
                    }
                    final String stem = m.group().substring(0, m.group().indexOf(".{"));
                    for (final String leaf : m.group(1).split(","))
                    {
                        named.add(stem + "." + leaf.trim());
                    }
                }
            }
        }
        return named;
    }

    @Test
    void bracesExpandAndPlainNamesStand()
    {
        assertEquals(Set.of("dev.offcache.a.x", "dev.offcache.a.y.z", "dev.offcache.b"), documented(
            "intro\n| module | packages |\n|---|---|\n| `m` | `dev.offcache.a.{x, y.z}` (`x`: an x) |\n" +
                "| `n` | `dev.offcache.b` |\n\nafter: dev.offcache.c\n"));
    }

    /** Java or Scala sources (a Scala package keeps its package-info.java in the module's Java tree). */
    private static boolean holdsClasses(final Path dir) throws IOException
    {
        if (!Files.isDirectory(dir))
        {
            return false;
        }
        try (Stream<Path> files = Files.list(dir))
        {
            return files.anyMatch((f) -> (f.toString().endsWith(".java") || f.toString().endsWith(".scala"))
                && !f.endsWith("package-info.java"));
        }
    }
}
