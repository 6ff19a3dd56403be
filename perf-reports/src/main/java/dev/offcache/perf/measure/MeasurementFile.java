package dev.offcache.perf.measure;

import java.nio.file.Path;
import java.util.List;

/**
 * A measurement file: results that JMH did not produce (a load-test script, a simulation, a scan run by hand), in
 * the documented format {@value #FORMAT} (see {@code docs/perf-reports.md}, "Measurement files"), read by
 * {@link MeasurementFileReader}.
 *
 * @param source       the file it was read from.
 * @param suite        the suite's name, a heading of the report and a key of comparisons
 *                     ({@code cache-server.L2VsNginx}).
 * @param title        what the suite measures, one line; null when not given.
 * @param command      the command that produced the file, rerunnable from the repository root.
 * @param machine      the machine, as the producer describes it; null when not given.
 * @param loadAtStart  the load averages when the measurement started; null when not given.
 * @param loadAtEnd    the load averages when it ended; null when not given.
 * @param startedAt    when it started (ISO-8601); null when not given.
 * @param notes        notes for the report.
 * @param measurements the values, in file order; never empty.
 */
public record MeasurementFile(Path source, String suite, String title, String command, String machine,
    String loadAtStart, String loadAtEnd, String startedAt, List<String> notes, List<Measurement> measurements)
{
    /** The value of the {@code format} field this version reads. */
    public static final String FORMAT = "offcache-measurements/1";

    /**
     * Freezes the lists.
     */
    public MeasurementFile
    {
        notes = List.copyOf(notes);
        measurements = List.copyOf(measurements);
    }
}
