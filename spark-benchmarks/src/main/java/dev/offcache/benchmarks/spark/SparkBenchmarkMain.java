package dev.offcache.benchmarks.spark;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Entry point of {@code spark-benchmarks.jar}: JMH's own command line, every forked JVM (a Spark driver, and in
 * local mode its executor too) started with offcache's JVM flags plus the {@code --add-opens} list spark-submit
 * adds on Java 17. A user's own {@code -jvmArgsPrepend} is kept after them.
 */
public final class SparkBenchmarkMain
{
    /** The driver JVM's heap for a query benchmark (the warm and first-action runs, and {@link ActionTimeline}). */
    static final String DRIVER_HEAP = "-Xmx3g";

    private SparkBenchmarkMain()
    {
    }

    /**
     * Runs JMH with the given arguments.
     *
     * @param args JMH command-line arguments.
     * @throws Exception whatever JMH throws.
     */
    public static void main(final String[] args) throws Exception
    {
        final String flags = jvmFlags();
        final List<String> out = new ArrayList<>(Arrays.asList(args));
        final int prepend = out.indexOf("-jvmArgsPrepend");
        if (prepend >= 0 && prepend + 1 < out.size())
        {
            out.set(prepend + 1, flags + " " + out.get(prepend + 1));
        }
        else
        {
            out.addAll(0, List.of("-jvmArgsPrepend", flags));
        }
        org.openjdk.jmh.Main.main(out.toArray(new String[0]));
    }

    /**
     * The fork flags filtered in at build time: the parent's {@code offcache.jvm.flags} and Spark's module flags.
     *
     * @return the flags, space separated.
     * @throws IOException if a resource cannot be read.
     */
    static String jvmFlags() throws IOException
    {
        return offcacheFlags() + " " + resource("spark-jvm-flags.txt");
    }

    /**
     * offcache's flags alone, for local-cluster executors ({@code spark.executor.extraJavaOptions}): Spark adds its
     * own module flags to executors.
     *
     * @return offcache's flags.
     * @throws IOException if the resource cannot be read.
     */
    static String offcacheFlags() throws IOException
    {
        return resource("jvm-flags.txt");
    }

    private static String resource(final String name) throws IOException
    {
        try (InputStream in = SparkBenchmarkMain.class.getResourceAsStream(name))
        {
            if (in == null)
            {
                throw new IllegalStateException(name + " is missing from spark-benchmarks.jar; rebuild it with Maven");
            }
            return new String(in.readAllBytes(), StandardCharsets.US_ASCII).trim();
        }
    }
}
