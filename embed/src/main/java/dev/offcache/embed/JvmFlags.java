package dev.offcache.embed;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * Checks, before the first off-heap buffer is made, that the JVM was started with the {@code --add-opens} flags the
 * cache needs on Java 17+, and fails with a message that names the missing flags and where to put them, instead of an
 * {@code IllegalAccessError} deep inside Agrona.
 */
public final class JvmFlags
{
    /** The packages of {@code java.base} the cache needs open to the class path. */
    public static final List<String> REQUIRED_PACKAGES =
        List.of("jdk.internal.misc", "java.nio", "sun.nio.ch", "java.lang");

    private JvmFlags()
    {
    }

    /**
     * The flags missing in this JVM.
     *
     * @return {@code --add-opens java.base/PKG=ALL-UNNAMED} for each package not open to this class's module.
     */
    public static List<String> missing()
    {
        final Module base = Object.class.getModule();
        final Module self = JvmFlags.class.getModule();
        // Agrona only calls jdk.internal.misc.Unsafe's public methods, so --add-exports serves as well as --add-opens.
        return missing((pkg) -> base.isOpen(pkg, self) ||
            ("jdk.internal.misc".equals(pkg) && base.isExported(pkg, self)));
    }

    /**
     * The flags missing given which packages are open.
     *
     * @param isOpen whether a {@code java.base} package is open to the cache's classes.
     * @return the missing flags, in {@link #REQUIRED_PACKAGES} order.
     */
    public static List<String> missing(final Predicate<String> isOpen)
    {
        final List<String> missing = new ArrayList<>();
        for (final String pkg : REQUIRED_PACKAGES)
        {
            if (!isOpen.test(pkg))
            {
                missing.add("--add-opens java.base/" + pkg + "=ALL-UNNAMED");
            }
        }
        return missing;
    }

    /**
     * Fails when a flag is missing.
     *
     * @throws IllegalStateException naming every missing flag and the Spark settings that carry them.
     */
    public static void check()
    {
        final List<String> missing = missing();
        if (!missing.isEmpty())
        {
            throw new IllegalStateException(message(missing));
        }
    }

    static String message(final List<String> missing)
    {
        final String flags = String.join(" ", missing);
        return "offcache needs these JVM flags on Java 17+ (off-heap buffers through Agrona): " + flags +
            ". Add them to the JVM's command line; in Spark set spark.driver.extraJavaOptions and " +
            "spark.executor.extraJavaOptions to \"" + flags + "\" (see docs/engines.md).";
    }
}
