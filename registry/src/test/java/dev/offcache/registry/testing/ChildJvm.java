package dev.offcache.registry.testing;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The command line of a child JVM running a test class's {@code main} with this build's JVM flags
 * ({@code offcache.jvm.flags}, set by Surefire, never retyped), a small C1-only heap, and this JVM's class path;
 * crash and kill tests start it with their own {@link ProcessBuilder} redirections and own the process.
 */
public final class ChildJvm
{
    private ChildJvm()
    {
    }

    /**
     * The command.
     *
     * @param extraOptions JVM options after the shared ones (system properties, say).
     * @param mainClass    the class whose {@code main} runs.
     * @param args         its arguments.
     * @return a new, mutable list.
     */
    public static List<String> command(final List<String> extraOptions, final Class<?> mainClass, final String... args)
    {
        final List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        final String flags = System.getProperty("offcache.jvm.flags", "").trim();
        if (!flags.isEmpty())
        {
            command.addAll(Arrays.asList(flags.split("\\s+")));
        }
        command.add("-Xmx128m");
        command.add("-XX:TieredStopAtLevel=1");
        command.addAll(extraOptions);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(mainClass.getName());
        command.addAll(Arrays.asList(args));
        return command;
    }
}
