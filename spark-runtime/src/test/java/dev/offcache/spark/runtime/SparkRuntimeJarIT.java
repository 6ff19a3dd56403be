package dev.offcache.spark.runtime;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The packaged Spark runtime jar, as a Spark user gets it: every class in it is offcache's own or relocated under
 * {@code dev.offcache.shaded} (nothing of Spark or Scala inside), and Spark runs offcache's {@code df.cache()} from it
 * in a JVM whose class path is Spark's own jars (the module's provided scope) and that jar only.
 */
class SparkRuntimeJarIT
{
    private static final List<String> RELOCATED = List.of("dev/offcache/shaded/org/agrona/",
        "dev/offcache/shaded/io/aeron/", "dev/offcache/shaded/com/lmax/", "dev/offcache/shaded/org/jctools/");

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
        final int[] relocated = new int[RELOCATED.size()];
        boolean plugin = false;
        boolean scan = false;
        try (JarFile jar = new JarFile(runtimeJar().toFile()))
        {
            for (final var entries = jar.entries(); entries.hasMoreElements(); )
            {
                final String name = entries.nextElement().getName();
                if (!name.endsWith(".class") || name.startsWith("META-INF/"))
                {
                    continue;
                }
                if (!name.startsWith("dev/offcache/"))
                {
                    foreign.add(name);
                }
                for (int i = 0; i < RELOCATED.size(); i++)
                {
                    relocated[i] += name.startsWith(RELOCATED.get(i)) ? 1 : 0;
                }
                plugin |= name.equals("dev/offcache/spark/OffcachePlugin.class");
                scan |= name.equals("dev/offcache/spark/catalyst/OffcacheScanExec.class");
            }
        }
        assertEquals(List.of(), foreign.subList(0, Math.min(20, foreign.size())), "classes outside dev/offcache");
        for (int i = 0; i < RELOCATED.size(); i++)
        {
            assertTrue(relocated[i] > 0, "nothing under " + RELOCATED.get(i));
        }
        assertTrue(plugin && scan, "the plugin and the Catalyst scan are in the jar");
    }

    @Test
    void sparkCachesAFrameFromTheShadedJarAndSparksJarsAlone() throws Exception
    {
        final String providedScope = Files.readString(Path.of(System.getProperty("spark.classpath.file")),
            StandardCharsets.UTF_8);
        final List<String> sparkJars = new ArrayList<>(Arrays.asList(providedScope.trim().split(File.pathSeparator)));
        // Spark ships slf4j-api; Maven lists it under offcache's compile scope here (offcache-spark uses it too), so
        // the provided scope lacks it: it comes from this JVM's class path.
        Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
            .filter(entry -> entry.contains("slf4j-api")).forEach(sparkJars::add);
        assertTrue(sparkJars.stream().anyMatch(j -> j.contains("spark-sql_2.13")), "Spark's jars: " + sparkJars);
        assertFalse(sparkJars.stream().anyMatch(j -> j.contains("agrona") || j.contains("aeron") ||
            j.contains("offcache")), "Spark's jars hold none of offcache's dependencies: " + sparkJars);
        final Path executorDir = Files.createDirectories(dir.resolve("executors"));
        final List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(Arrays.asList(System.getProperty("offcache.jvm.flags").trim().split("\\s+")));
        command.addAll(Arrays.asList(System.getProperty("spark.jvm.flags").trim().split("\\s+")));
        command.add("-Xmx768m");
        command.add("-cp");
        command.add(String.join(File.pathSeparator, runtimeJar().toString(), testClasses(),
            String.join(File.pathSeparator, sparkJars)));
        command.add(SparkRuntimeProbe.class.getName());
        command.add(executorDir.toString());
        final Path out = dir.resolve("out.txt");
        final Path err = dir.resolve("err.txt");
        final Process process = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile())
            .start();
        if (!process.waitFor(300, TimeUnit.SECONDS))
        {
            process.destroyForcibly();
            throw new AssertionError("the probe JVM did not finish in 300 s; stderr ends " + tail(err));
        }
        final String stdout = Files.readString(out, StandardCharsets.UTF_8);
        final String result = "exit " + process.exitValue() + ", stdout " + stdout + ", stderr ends " + tail(err);
        assertEquals(0, process.exitValue(), result);
        assertEquals(1, value(stdout, "materializationsAfterFirst"), "the first action materialized once: " + result);
        assertEquals(1, value(stdout, "materializationsAfterSecond"), "the second action ran no job of ours: " +
            result);
        assertEquals(1, value(stdout, "hits"), result);
        assertEquals(0, value(stdout, "uncached"), "offcache served both actions: " + result);
        assertEquals(8, value(stdout, "localReads"), "both actions read the 4 partitions mapped: " + result);
        assertEquals(4, value(stdout, "partitionFiles"), "one file per partition while cached: " + result);
        assertTrue(stdout.contains("agrona=false") && stdout.contains("shadedAgrona=true") &&
            stdout.contains("aeron=false"), "only the relocated Agrona and Aeron are on the class path: " + result);
        assertEquals(0, value(stdout, "LEFT files"), "nothing left after the session stops: " + result);
    }

    private static String testClasses()
    {
        return Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
            .filter(entry -> entry.endsWith("test-classes")).findFirst().orElseThrow();
    }

    private static long value(final String stdout, final String name)
    {
        final Matcher matcher = Pattern.compile(Pattern.quote(name) + "=(\\d+)").matcher(stdout);
        assertTrue(matcher.find(), "no " + name + " in " + stdout);
        return Long.parseLong(matcher.group(1));
    }

    private static String tail(final Path file) throws IOException
    {
        final String text = Files.readString(file, StandardCharsets.UTF_8);
        return text.substring(Math.max(0, text.length() - 4000));
    }
}
