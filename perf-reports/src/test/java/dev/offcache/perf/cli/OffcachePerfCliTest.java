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
import dev.offcache.perf.report.RepoPaths;
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
            " (14 results, 0 measurement files, 6 pairs, 11 charts)"), out.toString());
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
        assertTrue(err.toString().contains("Missing input: give --json FILE (JMH results) and/or --measurements FILE"),
            err.toString());
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

        final String parquet = Fixtures.measurements(Fixtures.PARQUET).toString();
        assertEquals(0, execute("run", "--profile", "quick", "--include", "Slab", "--jar", jar.toString(),
            "--java", fakeJava.toString(), "--jmh-args", "-p slotSize=4096", "--measurements", parquet,
            "--out", runDir.toString()), err::toString);

        final List<String> calls = Files.readAllLines(argsFile);
        assertEquals(2, calls.size(), "one listing, one run");
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
        // The command that reruns it all: profile, filters, JMH options, measurement files, output.
        assertEquals("perf-reports/bin/offcache-perf run --profile quick --include Slab " +
            "--jmh-args '-p slotSize=4096' --jar " + jar + " --java " + fakeJava + " --measurements " +
            RepoPaths.display(Path.of(parquet)) + " --out " + runDir, info.rerunCommand());
        assertTrue(console.contains("[perf] rerun: " + info.rerunCommand()), console);
        assertTrue(console.contains("[perf] at least 5 runs × 1 fork × (1 × 1 s warm-up + 5 × 500 ms measurement) " +
            "= 18 s of iterations"), console);
        assertTrue(Files.isRegularFile(runDir.resolve("measurements").resolve(Fixtures.PARQUET)));
        final String report = Files.readString(runDir.resolve("report.md"));
        assertTrue(report.contains("- `dev.offcache.benchmarks.server.HttpServerBenchmark.get`"), report);
        assertTrue(report.contains("From the repository root:\n\n```\n" + info.rerunCommand() + "\n```\n\n" +
            "which ran JMH as:\n\n```\n" + info.command() + "\n```"), report);
        assertTrue(report.contains("## parquet.ColumnScan\n"), report);

        // A later report from the same directory names the recorded machine and command.
        assertEquals(0, execute("report", "--json", runDir.resolve("jmh-result.json").toString(), "--out",
            dir.resolve("again").toString()));
        final String again = Files.readString(dir.resolve("again").resolve("report.md"));
        assertTrue(again.contains("Recorded by `offcache-perf run` (profile quick"), again);
        assertTrue(again.contains(info.rerunCommand()), again);
        assertTrue(again.contains("## parquet.ColumnScan\n"), "measurement files beside the JSON are read: " + again);
        assertTrue(Files.isRegularFile(dir.resolve("again").resolve("measurements").resolve(Fixtures.PARQUET)));
    }

    @Test
    void reportTakesMeasurementFilesWithoutJmhResults() throws IOException
    {
        final Path report = dir.resolve("m");
        assertEquals(0, execute("report", "--measurements", Fixtures.measurements(Fixtures.NGINX_CAPTURED).toString(),
            "--measurements", Fixtures.measurements(Fixtures.HIT_RATIO_CAPTURED).toString(), "--out",
            report.toString()), err::toString);
        assertTrue(out.toString().startsWith("[perf] report: " + report.resolve("report.md") +
            " (0 results, 2 measurement files, 53 pairs, "), out.toString());
        final String md = Files.readString(report.resolve("report.md"));
        assertTrue(md.contains("## cache-server.L2VsNginx\n"), md);
        assertTrue(md.contains("## l1.HitRatioSimulation\n"), md);
        assertTrue(Files.isRegularFile(report.resolve("charts").resolve("l1.HitRatioSimulation-speedup.png")));
        assertTrue(Files.isRegularFile(report.resolve("charts").resolve("cache-server.L2VsNginx-ms-pairs.png")));
    }

    @Test
    void aMalformedMeasurementFileIsAClearErrorWithExitCodeOne() throws IOException
    {
        final Path bad = Files.writeString(dir.resolve("bad.json"), "{\"format\": \"offcache-measurements/1\", " +
            "\"suite\": \"a\", \"command\": \"c\", \"measurements\": [{\"case\": \"c\", \"metric\": \"m\", " +
            "\"impl\": \"x\", \"unit\": \"%\", \"better\": \"more\", \"value\": 1}]}");
        assertEquals(1, execute("report", "--json", Fixtures.path(Fixtures.REPORT).toString(), "--measurements",
            bad.toString(), "--out", dir.resolve("o").toString()));
        assertEquals("offcache-perf: error: " + bad + ": measurements[0] (\"c\" / m / x): \"better\" must be " +
            "\"higher\" or \"lower\", not \"more\"\n", err.toString());
        assertTrue(Files.notExists(dir.resolve("o").resolve("report.md")));

        // run checks the files before it lists or runs a single benchmark.
        final Path argsFile = dir.resolve("args.txt");
        final Path fakeJava = fakeJava("echo \"$@\" >> '" + argsFile + "'");
        final Path jar = Files.writeString(dir.resolve("benchmarks.jar"), "not really a jar");
        assertEquals(1, execute("run", "--jar", jar.toString(), "--java", fakeJava.toString(), "--measurements",
            dir.resolve("missing.json").toString(), "--out", dir.resolve("r").toString()));
        assertTrue(err.toString().endsWith("offcache-perf: error: " + dir.resolve("missing.json") +
            ": no such file\n"), err.toString());
        assertTrue(Files.notExists(argsFile), "nothing was run");
    }

    @Test
    void compareDiffsTwoReportDirectoriesWithTheirMeasurementFiles() throws IOException
    {
        final Path before = reportDir("before", Fixtures.COMPARE_BASELINE, 22_000, 23_000);
        final Path after = reportDir("after", Fixtures.COMPARE_BASELINE, 15_000, 16_000);
        assertEquals(3, execute("compare", "--baseline", before.toString(), "--candidate", after.toString(), "--out",
            dir.resolve("c").toString(), "--fail-on-regression"));
        assertTrue(out.toString().contains("[perf] x.Load · case · throughput · offcache: REGRESSION 22,500 → " +
            "15,500 req/s (-31.1%, higher is better)"), out.toString());
        assertTrue(out.toString().contains("(8 benchmarks, 2 measurements, 1 flagged)"), out.toString());
        final String md = Files.readString(dir.resolve("c").resolve("compare.md"));
        assertTrue(md.lines().anyMatch(("| x.Load | case | throughput | offcache | req/s | higher | 22,500 | " +
            "22,000 – 23,000 (2 runs) | 15,500 | 15,000 – 16,000 (2 runs) | -31.1% | **REGRESSION** |")::equals), md);
        assertTrue(md.lines().anyMatch(l -> l.startsWith("| x.Load | case | throughput | nginx |") &&
            l.endsWith("| +0.0% | within error |")), md);
        // The committed report directory against itself: nothing flagged.
        assertEquals(0, execute("compare", "--baseline", before.toString(), "--candidate", before.toString(),
            "--out", dir.resolve("same").toString(), "--fail-on-regression"));
        assertEquals(1, execute("compare", "--baseline", dir.toString(), "--candidate", before.toString(), "--out",
            dir.resolve("x").toString()));
        assertTrue(err.toString().contains(dir + " is a directory without jmh-result.json or measurements/*.json"),
            err.toString());
    }

    @Test
    void aDryRunListsTheSuitesAndTheTimeWithoutRunningThem() throws IOException
    {
        final Path argsFile = dir.resolve("args.txt");
        final Path fakeJava = fakeJava("echo \"$@\" >> '" + argsFile + "'",
            "echo 'Benchmarks: '",
            "echo 'dev.offcache.benchmarks.slab.SlabAllocateBenchmark.allocateRelease'",
            "echo '  param \"impl\" = {offcache, allocateDirect}'",
            "echo 'dev.offcache.benchmarks.server.HttpServerBenchmark.get'");
        final Path jar = Files.writeString(dir.resolve("benchmarks.jar"), "not really a jar");
        assertEquals(0, execute("run", "--profile", "full", "--dry-run", "--jar", jar.toString(), "--java",
            fakeJava.toString(), "--out", dir.resolve("o").toString()), err::toString);
        assertTrue(out.toString().contains("[perf] at least 3 runs × 3 forks × (5 × 2 s warm-up + 5 × 2 s " +
            "measurement) = 3 min of iterations"), out.toString());
        assertTrue(out.toString().contains("[perf]   slab.SlabAllocateBenchmark: 2 runs\n[perf]   " +
            "server.HttpServerBenchmark: 1 run\n[perf] dry run: nothing was run"), out.toString());
        assertEquals(1, Files.readAllLines(argsFile).size(), "only the listing ran");
        assertTrue(Files.notExists(dir.resolve("o")));
    }

    /** A report directory: JMH results and one measurement file with the L2's runs given. */
    private Path reportDir(final String name, final String jmhFixture, final double run1, final double run2)
        throws IOException
    {
        final Path report = Files.createDirectories(dir.resolve(name).resolve("measurements"));
        Files.copy(Fixtures.path(jmhFixture), dir.resolve(name).resolve("jmh-result.json"));
        Files.writeString(report.resolve("load.json"), "{\"format\": \"offcache-measurements/1\", \"suite\": " +
            "\"x.Load\", \"command\": \"sh load.sh\", \"measurements\": [" +
            "{\"case\": \"case\", \"metric\": \"throughput\", \"unit\": \"req/s\", \"better\": \"higher\", " +
            "\"impl\": \"offcache\", \"values\": [" + run1 + ", " + run2 + "]}, " +
            "{\"case\": \"case\", \"metric\": \"throughput\", \"unit\": \"req/s\", \"better\": \"higher\", " +
            "\"impl\": \"nginx\", \"values\": [20000, 21000]}]}");
        return dir.resolve(name);
    }

    /** A stand-in for java: runs the given lines for -lp (the listing) and exits 0 otherwise. */
    private Path fakeJava(final String record, final String... listing) throws IOException
    {
        final Path fake = dir.resolve("fake-java");
        Files.writeString(fake, "#!/bin/sh\n" + record + "\nfor a in \"$@\"; do if [ \"$a\" = -lp ]; then\n" +
            String.join("\n", listing) + (listing.length == 0 ? ":" : "") + "\nexit 0\nfi; done\nexit 0\n",
            StandardCharsets.UTF_8);
        Files.setPosixFilePermissions(fake, PosixFilePermissions.fromString("rwxr-xr-x"));
        return fake;
    }
}
