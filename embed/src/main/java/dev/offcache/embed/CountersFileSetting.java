package dev.offcache.embed;

import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * Where a JVM's shared cache keeps its counters so they can be read from outside the process: the system property
 * {@value #PROPERTY} (in Spark, {@code -Doffcache.counters.file=...} in {@code spark.driver.extraJavaOptions} and
 * {@code spark.executor.extraJavaOptions}), else the variable {@value #ENV}, else nowhere (the counters stay in
 * memory). {@code %p} in the path becomes the process id, so executors sharing a host and a setting keep apart; a
 * second cache in the same JVM (other settings) gets {@code .2} appended, a third {@code .3}. The file is a
 * {@code CountersFile} (the L2 server's layout): {@code ./offcache-counters FILE} prints it, and it keeps the last
 * values after the JVM exits.
 */
public final class CountersFileSetting
{
    /** The system property naming the file. */
    public static final String PROPERTY = "offcache.counters.file";
    /** The environment variable naming the file, when the property is not set. */
    public static final String ENV = "OFFCACHE_COUNTERS_FILE";

    private static final AtomicInteger CACHES = new AtomicInteger();

    private CountersFileSetting()
    {
    }

    /**
     * The file for the next shared cache of this JVM, or null for counters in memory.
     *
     * @return the path, or null.
     */
    static Path next()
    {
        return resolve(System::getProperty, System.getenv(), ProcessHandle.current().pid(),
            CACHES.incrementAndGet());
    }

    /**
     * The file for the {@code ordinal}-th cache of a process.
     *
     * @param properties the system properties.
     * @param env        the environment.
     * @param pid        the process id, for {@code %p}.
     * @param ordinal    1 for the JVM's first cache, 2 for the second...
     * @return the path, or null when neither setting names one.
     */
    static Path resolve(final Function<String, String> properties, final Map<String, String> env, final long pid,
        final int ordinal)
    {
        String value = properties.apply(PROPERTY);
        if (value == null || value.isBlank())
        {
            value = env.get(ENV);
        }
        if (value == null || value.isBlank())
        {
            return null;
        }
        final String path = value.trim().replace("%p", Long.toString(pid));
        return Path.of(ordinal == 1 ? path : path + "." + ordinal);
    }
}
