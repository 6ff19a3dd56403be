package dev.offcache.server.testing;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Starts a test class's {@code main} in a child JVM with this build's JVM flags ({@code offcache.jvm.flags}, set by
 * Surefire, never retyped) and this JVM's class path, so tests can kill it with SIGKILL. Its stderr goes to its
 * stdout; the caller reads or drains it and owns the process.
 */
public final class ChildJvm
{
    private ChildJvm()
    {
    }

    /**
     * Starts a child JVM.
     *
     * @param maxHeap   the {@code -Xmx} value, e.g. {@code 64m}.
     * @param mainClass the class whose {@code main} runs.
     * @param args      its arguments.
     * @return the running process.
     * @throws IOException when it cannot be started.
     */
    public static Process start(final String maxHeap, final Class<?> mainClass, final String... args)
        throws IOException
    {
        return start(List.of("-Xmx" + maxHeap), mainClass, args);
    }

    /**
     * Starts a child JVM with more JVM options and none of this process's {@code OFFCACHE_*} variables (so a
     * program under test sees only its arguments).
     *
     * @param jvmOptions options after the build's flags, e.g. {@code -Xmx64m}.
     * @param mainClass  the class whose {@code main} runs.
     * @param args       its arguments.
     * @return the running process.
     * @throws IOException when it cannot be started.
     */
    public static Process start(final List<String> jvmOptions, final Class<?> mainClass, final String... args)
        throws IOException
    {
        final List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        final String flags = System.getProperty("offcache.jvm.flags", "").trim();
        if (!flags.isEmpty())
        {
            command.addAll(Arrays.asList(flags.split("\\s+")));
        }
        command.addAll(jvmOptions);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(mainClass.getName());
        command.addAll(Arrays.asList(args));
        final ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().keySet().removeIf((name) -> name.startsWith("OFFCACHE_"));
        return builder.start();
    }
}
