package dev.offcache.server.metrics;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

import dev.offcache.range.metrics.MetricFamilies;

/**
 * {@code offcache_build_info}: the server's version (filtered into {@code build.properties} by the build) and the
 * Java runtime it runs on, as labels of a constant 1, so dashboards can tell which build each server runs.
 */
public final class BuildInfo
{
    /** The project version of this build, {@code unknown} when run from classes the build did not filter. */
    public static final String VERSION = load();

    private BuildInfo()
    {
    }

    /**
     * Adds the info family.
     *
     * @param out the scrape's families.
     */
    public static void collectInto(final MetricFamilies out)
    {
        out.info("offcache_build", "The offcache build and Java runtime this server runs.",
            "version", VERSION, "java_version", System.getProperty("java.version", "unknown"));
    }

    private static String load()
    {
        try (InputStream in = BuildInfo.class.getResourceAsStream("build.properties"))
        {
            if (null == in)
            {
                return "unknown";
            }
            final Properties properties = new Properties();
            properties.load(in);
            final String version = properties.getProperty("version", "unknown");
            return version.startsWith("${") ? "unknown" : version;
        }
        catch (final IOException ex)
        {
            return "unknown";
        }
    }
}
