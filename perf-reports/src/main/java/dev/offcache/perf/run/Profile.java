package dev.offcache.perf.run;

import java.util.List;
import java.util.Locale;

/**
 * A named set of JMH options for {@code offcache-perf run}: how long and how often each benchmark is measured.
 */
public enum Profile
{
    /** Every benchmark once, as the build does (the build in one JVM): checks that benchmarks run, measures nothing. */
    SMOKE("every benchmark once (1 fork, no warm-up, one 300 ms iteration): a build check, not a measurement",
        "-f", "1", "-wi", "0", "-i", "1", "-r", "300ms"),
    /** A few minutes on a small machine: enough for order-of-magnitude comparisons, wide error bars. */
    QUICK("1 fork, 1 x 1 s warm-up, 5 x 500 ms measurement, -prof gc: minutes, wide error bars",
        "-f", "1", "-wi", "1", "-w", "1s", "-i", "5", "-r", "500ms", "-prof", "gc"),
    /** The publishable numbers: several forks and longer iterations. */
    FULL("3 forks, 5 x 2 s warm-up, 5 x 2 s measurement, -prof gc: about a minute per benchmark and parameter set",
        "-f", "3", "-wi", "5", "-w", "2s", "-i", "5", "-r", "2s", "-prof", "gc");

    private final String description;
    private final List<String> jmhArgs;

    Profile(final String description, final String... jmhArgs)
    {
        this.description = description;
        this.jmhArgs = List.of(jmhArgs);
    }

    /**
     * What the profile does, for help texts and reports.
     *
     * @return the description.
     */
    public String description()
    {
        return description;
    }

    /**
     * The note a report of this profile carries, if any.
     *
     * @return the note or null.
     */
    public String reportNote()
    {
        return this == SMOKE ? "Smoke profile: one short iteration per benchmark. This checks that the benchmarks " +
            "run; the numbers are not measurements." : null;
    }

    /**
     * The JMH options of the profile.
     *
     * @return options for {@code benchmarks.jar}.
     */
    public List<String> jmhArgs()
    {
        return jmhArgs;
    }

    /**
     * The profile's name as typed on the command line.
     *
     * @return lower-case name.
     */
    public String cliName()
    {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * Finds a profile by its command-line name.
     *
     * @param name for example {@code quick}.
     * @return the profile.
     * @throws IllegalArgumentException naming the known profiles when there is no such profile.
     */
    public static Profile byName(final String name)
    {
        for (final Profile profile : values())
        {
            if (profile.cliName().equals(name == null ? null : name.toLowerCase(Locale.ROOT)))
            {
                return profile;
            }
        }
        throw new IllegalArgumentException("unknown profile '" + name + "'; the profiles are smoke, quick and full");
    }
}
