package dev.offcache.perf.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import picocli.CommandLine;

import dev.offcache.perf.Fixtures;
import dev.offcache.perf.report.RunInfo;

class OffcachePerfCliTest
{
    @TempDir
    Path dir;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int execute(final String... args)
    {
        final CommandLine commandLine = OffcachePerf.commandLine();
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(err, true));
        return commandLine.execute(args);
    }

    @Test
    void reportWritesMarkdownAndCharts()
    {
        final Path report = dir.resolve("report");
        assertEquals(0, execute("report", "--json", Fixtures.path(Fixtures.REPORT).toString(), "--out",
            report.toString(), "--command", "java -jar benchmarks.jar -rf json"));
        assertTrue(out.toString().startsWith("[perf] report: " + report.resolve("report.md") +
            " (14 results, 6 pairs, 6 charts)"), out.toString());
        assertTrue(Files.isRegularFile(report.resolve("report.md")));
        assertTrue(Files.isRegularFile(report.resolve("charts").resolve("slab.SlabAllocateBenchmark-thrpt-pairs.png")));
        assertEquals("", err.toString());
    }

    @Test
    void missingResultFileIsAClearErrorWithExitCodeOne()
    {
        final Path missing = dir.resolve("missing.json");
        assertEquals(1, execute("report", "--json", missing.toString(), "--out", dir.resolve("o").toString()));
        assertEquals("offcache-perf: error: " + missing + ": no such file\n", err.toString());
    }

    @Test
    void missingResultFileIsSkippedWhenAsked()
    {
        final Path missing = dir.resolve("jmh-smoke.json");
        assertEquals(0, execute("report", "--json", missing.toString(), "--out", dir.resolve("o").toString(),
            "--skip-if-missing"));
        assertTrue(out.toString().contains("no results at " + missing), out.toString());
        assertTrue(out.toString().contains("skipping the report"), out.toString());
        assertTrue(Files.notExists(dir.resolve("o")));
    }

    @Test
    void malformedJsonIsAClearErrorWithExitCodeOne() throws IOException
    {
        final Path bad = Files.writeString(dir.resolve("bad.json"), "[{\"benchmark\": ");
        assertEquals(1, execute("report", "--json", bad.toString(), "--out", dir.resolve("o").toString()));
        assertTrue(err.toString().startsWith("offcache-perf: error: " + bad + ": is not valid JSON: "), err.toString());
        assertEquals(1, execute("compare", "--baseline", bad.toString(), "--candidate",
            Fixtures.path(Fixtures.COMPARE_CANDIDATE).toString(), "--out", dir.resolve("c").toString()));
    }

    @Test
    void unknownProfileIsAUsageErrorNamingTheProfiles()
    {
        assertEquals(2, execute("run", "--profile", "fast", "--out", dir.resolve("o").toString()));
        assertTrue(err.toString().contains("Invalid value for option '--profile': unknown profile 'fast'; " +
            "the profiles are smoke, quick and full"), err.toString());
    }

    @Test
    void missingOptionsAndSubcommandsAreUsageErrors()
    {
        assertEquals(2, execute("report", "--out", dir.toString()));
        assertTrue(err.toString().contains("Missing required option: '--json=FILE'"), err.toString());
        assertEquals(2, execute());
        assertEquals(2, execute("benchmark"));
    }

    @Test
    void compareExitsWithThreeOnRegressionOnlyWhenAsked()
    {
        final String baseline = Fixtures.path(Fixtures.COMPARE_BASELINE).toString();
        final String candidate = Fixtures.path(Fixtures.COMPARE_CANDIDATE).toString();
        assertEquals(0, execute("compare", "--baseline", baseline, "--candidate", candidate, "--out",
            dir.resolve("c1").toString()));
        assertTrue(out.toString().contains("[perf] compare.CompareBenchmark.regressed [thrpt, 1 thr]: REGRESSION " +
            "1000.0 → 700.0 ops/s (-30.0%)"), out.toString());
        assertTrue(out.toString().contains("[perf] compare: " + dir.resolve("c1").resolve("compare.md") +
            " (9 benchmarks, 2 flagged)"), out.toString());
        assertEquals(3, execute("compare", "--baseline", baseline, "--candidate", candidate, "--out",
            dir.resolve("c2").toString(), "--fail-on-regression"));
        assertEquals(0, execute("compare", "--baseline", candidate, "--candidate", candidate, "--out",
            dir.resolve("c3").toString(), "--fail-on-regression"));
        assertTrue(Files.isRegularFile(dir.resolve("c3").resolve("compare.md")));
    }

    @Test
    void runWithoutBenchmarksJarIsAClearError()
    {
        final Path jar = dir.resolve("benchmarks.jar");
        assertEquals(1, execute("run", "--jar", jar.toString(), "--out", dir.resolve("o").toString()));
        assertEquals("offcache-perf: error: no such file: " + jar + "\n", err.toString());
    }

    @Test
    void runThatProducesNoResultsSaysWhyWithExitCodeOne() throws IOException
    {
        final Path jar = Files.writeString(dir.resolve("benchmarks.jar"), "not really a jar");
        final Path fakeJava = dir.resolve("java");
        Files.writeString(fakeJava, String.join("\n",
            "#!/bin/sh",
            "for a in \"$@\"; do if [ \"$a\" = -lp ]; then echo 'Benchmarks: '; echo 'a.b.C.d'; exit 0; fi; done",
            "echo 'ERROR: org.openjdk.jmh.runner.RunnerException: ERROR: Another JMH instance might be running.'",
            "exit 1",
            ""), StandardCharsets.UTF_8);
        Files.setPosixFilePermissions(fakeJava, PosixFilePermissions.fromString("rwxr-xr-x"));
        assertEquals(1, execute("run", "--profile", "smoke", "--jar", jar.toString(), "--java", fakeJava.toString(),
            "--out", dir.resolve("o").toString()));
        assertEquals("offcache-perf: error: benchmarks.jar exited with code 1 without results: ERROR: " +
            "org.openjdk.jmh.runner.RunnerException: ERROR: Another JMH instance might be running. (full output: " +
            dir.resolve("o").resolve("jmh-output.log") + ")\n", err.toString());
    }

    @Test
    void aFailedBenchmarkStillGetsAReportButFailsTheRun() throws IOException
    {
        final Path jar = Files.writeString(dir.resolve("benchmarks.jar"), "not really a jar");
        final Path fakeJava = dir.resolve("java");
        Files.writeString(fakeJava, String.join("\n",
            "#!/bin/sh",
            "for a in \"$@\"; do if [ \"$a\" = -lp ]; then echo 'Benchmarks: '; echo 'a.b.C.d'; " +
                "echo 'a.b.C.e'; exit 0; fi; done",
            "while [ $# -gt 0 ]; do if [ \"$1\" = -rff ]; then rff=\"$2\"; fi; shift; done",
            "echo '# Benchmark: a.b.C.e'",
            "echo '# Run progress: 50.00% complete, ETA 00:00:01'",
            "echo '<failure>'",
            "echo 'java.lang.IllegalStateException: setup failed'",
            "cp '" + Fixtures.path(Fixtures.COMPARE_BASELINE) + "' \"$rff\"",
            ""), StandardCharsets.UTF_8);
        Files.setPosixFilePermissions(fakeJava, PosixFilePermissions.fromString("rwxr-xr-x"));
        final Path runDir = dir.resolve("o");
        assertEquals(1, execute("run", "--profile", "quick", "--jar", jar.toString(), "--java", fakeJava.toString(),
            "--out", runDir.toString()));
        assertTrue(out.toString().contains("[perf] FAILED: a.b.C.e (stack trace in the JMH log)"), out.toString());
        assertEquals("offcache-perf: error: benchmarks.jar exited with code 0 and 1 benchmark runs failed " +
            "(the report has the others); see " + runDir.resolve("jmh-output.log") + "\n", err.toString());
        final String report = Files.readString(runDir.resolve("report.md"));
        assertTrue(report.contains("> benchmarks.jar exited with code 0 and 1 benchmark runs failed"), report);
        assertTrue(report.contains("- `a.b.C.e`"), report);
    }

    @Test
    void runWaitsForTheJmhLockWhenAsked() throws IOException
    {
        final Path jar = Files.writeString(dir.resolve("benchmarks.jar"), "not really a jar");
        final Path marker = dir.resolve("lock-was-busy");
        final Path fakeJava = dir.resolve("java");
        Files.writeString(fakeJava, String.join("\n",
            "#!/bin/sh",
            "for a in \"$@\"; do if [ \"$a\" = -lp ]; then echo 'Benchmarks: '; echo 'a.b.C.d'; exit 0; fi; done",
            "if [ ! -f '" + marker + "' ]; then",
            "  touch '" + marker + "'",
            "  echo 'ERROR: org.openjdk.jmh.runner.RunnerException: ERROR: Another JMH instance might be running. " +
                "Unable to acquire the JMH lock (/tmp/jmh.lock), exiting.'",
            "  exit 1",
            "fi",
            "while [ $# -gt 0 ]; do if [ \"$1\" = -rff ]; then rff=\"$2\"; fi; shift; done",
            "echo '# Benchmark: a.b.C.d'",
            "echo '# Run progress: 0.00% complete, ETA 00:00:01'",
            "cp '" + Fixtures.path(Fixtures.COMPARE_BASELINE) + "' \"$rff\"",
            ""), StandardCharsets.UTF_8);
        Files.setPosixFilePermissions(fakeJava, PosixFilePermissions.fromString("rwxr-xr-x"));
        assertEquals(0, execute("run", "--profile", "smoke", "--jar", jar.toString(), "--java", fakeJava.toString(),
            "--lock-wait", "5", "--out", dir.resolve("o").toString()), err::toString);
        assertTrue(out.toString().contains("[perf] another JMH run holds the JMH lock; retrying in 5 s\n" +
            "[perf] run 1/1 · suite a.b.C (1 of 1, 0 after it) · d · elapsed "), out.toString());
        assertTrue(Files.isRegularFile(dir.resolve("o").resolve("report.md")));
    }

    /**
     * The whole run path with a stand-in for {@code java -jar benchmarks.jar}: a script that answers the listing,
     * prints JMH-style progress and writes the recorded results where {@code -rff} says.
     */
    @Test
    void runStreamsProgressAndWritesResultsRunInfoAndReport() throws IOException
    {
        final Path jar = Files.writeString(dir.resolve("benchmarks.jar"), "not really a jar");
        final Path argsFile = dir.resolve("args.txt");
        final Path fakeJava = dir.resolve("java");
        Files.writeString(fakeJava, String.join("\n",
            "#!/bin/sh",
            "echo \"$@\" >> '" + argsFile + "'",
            "for a in \"$@\"; do if [ \"$a\" = -lp ]; then",
            "  echo 'Benchmarks: '",
            "  echo 'dev.offcache.benchmarks.slab.SlabAllocateBenchmark.allocateRelease'",
            "  echo '  param \"impl\" = {offcache, allocateDirect}'",
            "  echo '  param \"slotSize\" = {4096, 65536}'",
            "  echo 'dev.offcache.benchmarks.server.HttpServerBenchmark.get'",
            "  exit 0",
            "fi; done",
            "while [ $# -gt 0 ]; do if [ \"$1\" = -rff ]; then rff=\"$2\"; fi; shift; done",
            "echo '# Benchmark: dev.offcache.benchmarks.slab.SlabAllocateBenchmark.allocateRelease'",
            "echo '# Parameters: (impl = offcache, slotSize = 4096)'",
            "echo '# Run progress: 0.00% complete, ETA 00:00:20'",
            "echo 'Iteration   1: 20000000.000 ops/s'",
            "cp '" + Fixtures.path(Fixtures.REPORT) + "' \"$rff\"",
            "exit 0",
            ""), StandardCharsets.UTF_8);
        Files.setPosixFilePermissions(fakeJava, PosixFilePermissions.fromString("rwxr-xr-x"));
        final Path runDir = dir.resolve("run");

        assertEquals(0, execute("run", "--profile", "quick", "--include", "Slab", "--jar", jar.toString(),
            "--java", fakeJava.toString(), "--jmh-args", "-p slotSize=4096", "--out", runDir.toString()),
            err::toString);

        final List<String> calls = Files.readAllLines(argsFile);
        assertEquals("-jar " + jar + " -p slotSize=4096 -lp Slab", calls.get(0));
        assertEquals("-jar " + jar + " -f 1 -wi 1 -w 1s -i 5 -r 500ms -prof gc -p slotSize=4096 -rf json -rff " +
            runDir.resolve("jmh-result.json") + " Slab", calls.get(1));

        final String console = out.toString();
        assertTrue(console.contains("[perf] 2 suites, 2 benchmarks, 5 runs (parameter combinations)"), console);
        assertTrue(console.contains("[perf] run 1/5 · suite slab.SlabAllocateBenchmark (1 of 2, 1 after it) · " +
            "allocateRelease (impl = offcache, slotSize = 4096) · elapsed "), console);
        assertTrue(console.contains("[perf] report: " + runDir.resolve("report.md")), console);

        assertTrue(Files.isRegularFile(runDir.resolve("jmh-output.log")));
        final RunInfo info = RunInfo.besides(runDir.resolve("jmh-result.json"));
        assertEquals("quick", info.profile());
        assertEquals(0, info.exitCode());
        assertTrue(info.command().endsWith("-rff " + runDir.resolve("jmh-result.json") + " Slab"), info.command());
        final String report = Files.readString(runDir.resolve("report.md"));
        assertTrue(report.contains("- `dev.offcache.benchmarks.server.HttpServerBenchmark.get`"), report);
        assertTrue(report.contains(info.command()), report);

        // A later report from the same directory names the recorded machine and command.
        assertEquals(0, execute("report", "--json", runDir.resolve("jmh-result.json").toString(), "--out",
            dir.resolve("again").toString()));
        final String again = Files.readString(dir.resolve("again").resolve("report.md"));
        assertTrue(again.contains("Recorded by `offcache-perf run` (profile quick"), again);
        assertTrue(again.contains(info.command()), again);
    }
}
