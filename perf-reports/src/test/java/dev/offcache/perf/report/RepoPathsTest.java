package dev.offcache.perf.report;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;

class RepoPathsTest
{
    @Test
    void pathsInsideTheRepositoryAreShownRelativeToItsRoot()
    {
        final Path root = Path.of("/work/checkout");
        assertEquals("jmh-benchmarks/target/benchmarks.jar",
            RepoPaths.display(Path.of("/work/checkout/jmh-benchmarks/target/benchmarks.jar"), root));
        assertEquals("perf-reports/results/latest",
            RepoPaths.display(Path.of("/work/checkout/perf-reports/x/../results/latest"), root));
        assertEquals(".", RepoPaths.display(root, root));
        assertEquals("/tmp/perf", RepoPaths.display(Path.of("/tmp/perf"), root), "outside: as given");
    }

    @Test
    void theRootIsFoundFromTheWorkingDirectory()
    {
        // Tests run in perf-reports/, one level below the root.
        final Path root = RepoPaths.root();
        assertEquals(Path.of("").toAbsolutePath().getParent(), root);
        assertEquals("perf-reports/pom.xml", RepoPaths.display(Path.of("pom.xml")));
    }
}
