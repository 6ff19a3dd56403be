package dev.offcache.hadoop.runtime;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import dev.offcache.range.metrics.MetricNames;
import dev.offcache.server.cli.OffcacheServerCommand;
import dev.offcache.server.cli.ServerProgram;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The packaged runtime jar, as an engine gets it: every class in it is offcache's own or relocated under
 * {@code dev.offcache.shaded}, and it works in a JVM whose class path is only that jar and Hadoop's shaded client;
 * without the JVM flags it fails with a message naming them.
 */
class RuntimeJarIT
{
    @TempDir
    Path dir;

    private static Path runtimeJar()
    {
        final Path jar = Path.of(System.getProperty("offcache.runtime.jar"));
        assertTrue(Files.isRegularFile(jar), "no runtime jar at " + jar);
        return jar;
    }

    @Test
    void everyClassIsOffcachesOwnOrRelocated() throws IOException
    {
        final List<String> foreign = new ArrayList<>();
        int shaded = 0;
        try (JarFile jar = new JarFile(runtimeJar().toFile()))
        {
            for (final var entries = jar.entries(); entries.hasMoreElements(); )
            {
                final String name = entries.nextElement().getName();
                if (name.endsWith(".class") && !name.startsWith("META-INF/"))
                {
                    if (!name.startsWith("dev/offcache/"))
                    {
                        foreign.add(name);
                    }
                    if (name.startsWith("dev/offcache/shaded/io/netty/") ||
                        name.startsWith("dev/offcache/shaded/org/agrona/"))
                    {
                        shaded++;
                    }
                }
            }
        }
        assertEquals(List.of(), foreign.subList(0, Math.min(20, foreign.size())), "classes outside dev/offcache");
        assertTrue(shaded > 100, "Netty and Agrona are inside, relocated: " + shaded);
    }

    @Test
    void readsThroughTheCacheFromTheShadedJarAlone() throws Exception
    {
        final Result result = run(true);
        assertEquals(0, result.exit, result.toString());
        assertTrue(result.out.contains("OK fs=dev.offcache.hadoop.fs.OffcacheFileSystem"), result.toString());
        final long hits = Long.parseLong(result.out.replaceAll("(?s).*hits=(\\d+).*", "$1"));
        assertEquals(12, hits, "the second read of 12 blocks (3 MiB, 256 KiB blocks) hit: " + result);
    }

    @Test
    void readsThroughAnL2ServerFromTheShadedJarAlone() throws Exception
    {
        final String apiKey = "runtime-jar-it-key";
        final CommandLine commandLine = OffcacheServerCommand.commandLine(Map.of("OFFCACHE_API_KEYS", apiKey));
        commandLine.parseArgs("--listen", "127.0.0.1:0", "--ram-mb", "16", "--disk-mb", "16",
            "--shutdown-grace-seconds", "1", "--disk-path", Files.createDirectories(dir.resolve("ssd")).toString(),
            "--origin-dir", Files.createDirectories(dir.resolve("lake")).toString());
        final OffcacheServerCommand command = commandLine.getCommand();
        try (ServerProgram server = command.start())
        {
            final Result result = run(true, dir.resolve("lake").toString(),
                "http://127.0.0.1:" + server.server().address().getPort(), apiKey);
            assertEquals(0, result.exit, result.toString());
            final long l2Bytes = Long.parseLong(result.out.replaceAll("(?s).*l2bytes=(\\d+).*", "$1"));
            assertEquals(3 << 20, l2Bytes, "the cold read's 3 MiB came from L2: " + result);
            assertTrue(server.cache().metrics().value(MetricNames.ORIGIN_GETS + MetricNames.DEMAND) > 0,
                "the server read the file from its directory");
        }
    }

    @Test
    void withoutTheFlagsTheErrorNamesThem() throws Exception
    {
        final Result result = run(false);
        assertNotEquals(0, result.exit, result.toString());
        assertTrue(result.err.contains("--add-opens java.base/jdk.internal.misc=ALL-UNNAMED"), result.toString());
        assertTrue(result.err.contains("spark.executor.extraJavaOptions"), result.toString());
    }

    private Result run(final boolean withFlags) throws Exception
    {
        return run(withFlags, dir.toString());
    }

    private Result run(final boolean withFlags, final String... probeArgs) throws Exception
    {
        final String hadoopClient = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
            .filter((entry) -> entry.contains("hadoop-client-api") || entry.contains("hadoop-client-runtime") ||
                entry.contains("slf4j-api") || entry.contains("test-classes"))
            .collect(Collectors.joining(File.pathSeparator));
        final List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        if (withFlags)
        {
            command.addAll(Arrays.asList(System.getProperty("offcache.jvm.flags").trim().split("\\s+")));
        }
        command.add("-Xmx256m");
        command.add("-cp");
        command.add(runtimeJar() + File.pathSeparator + hadoopClient);
        command.add(RuntimeProbe.class.getName());
        command.addAll(List.of(probeArgs));
        final Path out = dir.resolve("out.txt");
        final Path err = dir.resolve("err.txt");
        final Process process = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile())
            .start();
        if (!process.waitFor(120, TimeUnit.SECONDS))
        {
            process.destroyForcibly();
            throw new AssertionError("the probe JVM did not finish in 120 s");
        }
        return new Result(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
            Files.readString(err, StandardCharsets.UTF_8));
    }

    private record Result(int exit, String out, String err)
    {
    }
}
