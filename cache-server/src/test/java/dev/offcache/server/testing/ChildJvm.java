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
        final List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        final String flags = System.getProperty("offcache.jvm.flags", "").trim();
        if (!flags.isEmpty())
        {
            command.addAll(Arrays.asList(flags.split("\\s+")));
        }
        command.add("-Xmx" + maxHeap);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(mainClass.getName());
        command.addAll(Arrays.asList(args));
        return new ProcessBuilder(command).redirectErrorStream(true).start();
    }
}
