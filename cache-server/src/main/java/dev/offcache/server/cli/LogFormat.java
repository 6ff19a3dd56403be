package dev.offcache.server.cli;

import java.util.Locale;

/**
 * The two built-in log formats of {@code offcache-server} ({@code --log-format}), each a Logback configuration in the
 * jar.
 */
public enum LogFormat
{
    /** One line per event: timestamp, level, thread, logger, message. */
    TEXT,
    /** One JSON object per line. */
    JSON;

    /** The classpath resource of its Logback configuration. */
    String configuration()
    {
        return "dev/offcache/server/logback-" + name().toLowerCase(Locale.ROOT) + ".xml";
    }
}
