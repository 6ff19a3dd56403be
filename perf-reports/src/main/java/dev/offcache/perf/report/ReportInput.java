package dev.offcache.perf.report;

import java.util.List;

import dev.offcache.perf.jmh.JmhResult;
import dev.offcache.perf.measure.MeasurementFile;

/**
 * Everything a report is written from.
 *
 * @param title        the report's title.
 * @param source       where the JMH results came from (the JSON file, relative to the repository root where it lies
 *                     inside it), or null when there are none.
 * @param command      the command that reruns what the report shows (from the repository root), or null when
 *                     unknown.
 * @param jmhCommand   the JMH command that command ran (paths relative to the repository root), or null.
 * @param machine      the machine the results were measured on.
 * @param machineNote  how sure we are of the machine, for example that it is only where the report was written.
 * @param loadAfter    the load averages at the end of the run, or null.
 * @param results      the JMH results; empty when the report holds measurement files only.
 * @param measurements the measurement files (results not from JMH).
 * @param notes        extra notes shown at the top (for example: this is a smoke run).
 * @param planned      benchmarks the run was to measure (to list those without a result); may be empty.
 */
public record ReportInput(String title, String source, String command, String jmhCommand, MachineInfo machine,
    String machineNote, String loadAfter, List<JmhResult> results, List<MeasurementFile> measurements,
    List<String> notes, List<String> planned)
{
    /**
     * Freezes the lists.
     */
    public ReportInput
    {
        results = List.copyOf(results);
        measurements = measurements == null ? List.of() : List.copyOf(measurements);
        notes = List.copyOf(notes);
        planned = planned == null ? List.of() : List.copyOf(planned);
        if (results.isEmpty() && measurements.isEmpty())
        {
            throw new IllegalArgumentException("a report needs JMH results or a measurement file");
        }
    }
}
