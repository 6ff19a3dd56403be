package dev.offcache.benchmarks;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Entry point of {@code benchmarks.jar}: JMH's own command line, with the JVM flags that Agrona, Aeron and Netty
 * need on Java 17+ handed to every forked benchmark JVM.
 *
 * <p>The flags come from the build's {@code offcache.jvm.flags} property (filtered into {@code jvm-flags.txt}), so
 * they are written once for Surefire, the JMH forks and the launchers. A user's own {@code -jvmArgsPrepend} is
 * kept and placed after ours.
 */
public final class BenchmarkMain
{
    private BenchmarkMain()
    {
    }

    /**
     * Runs JMH with the given arguments plus the offcache JVM flags for the forks.
     *
     * @param args JMH command-line arguments.
     * @throws Exception whatever JMH throws.
     */
    public static void main(final String[] args) throws Exception
    {
        org.openjdk.jmh.Main.main(withForkFlags(args, jvmFlags()));
    }

    static String[] withForkFlags(final String[] args, final String flags)
    {
        final List<String> out = new ArrayList<>(Arrays.asList(args));
        final int userPrepend = out.indexOf("-jvmArgsPrepend");
        if (userPrepend >= 0 && userPrepend + 1 < out.size())
        {
            out.set(userPrepend + 1, flags + " " + out.get(userPrepend + 1));
        }
        else
        {
            out.add(0, "-jvmArgsPrepend");
            out.add(1, flags);
        }
        return out.toArray(new String[0]);
    }

    static String jvmFlags() throws IOException
    {
        try (InputStream in = BenchmarkMain.class.getResourceAsStream("jvm-flags.txt"))
        {
            if (in == null)
            {
                throw new IllegalStateException("jvm-flags.txt is missing from benchmarks.jar; rebuild it with Maven");
            }
            return new String(in.readAllBytes(), StandardCharsets.US_ASCII).trim();
        }
    }
}
