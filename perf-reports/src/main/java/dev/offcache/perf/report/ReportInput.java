package dev.offcache.perf.report;

import java.util.List;

import dev.offcache.perf.jmh.JmhResult;

/**
 * Everything a report is written from.
 *
 * @param title        the report's title.
 * @param source       where the results came from (the JSON file, as the user named it).
 * @param command      the exact command that produced the results, or null when unknown.
 * @param machine      the machine the results were measured on.
 * @param machineNote  how sure we are of the machine, for example that it is only where the report was written.
 * @param loadAfter    the load averages at the end of the run, or null.
 * @param results      the results.
 * @param notes        extra notes shown at the top (for example: this is a smoke run).
 * @param planned      benchmarks the run was to measure (to list those without a result); may be empty.
 */
public record ReportInput(String title, String source, String command, MachineInfo machine, String machineNote,
    String loadAfter, List<JmhResult> results, List<String> notes, List<String> planned)
{
    /**
     * Freezes the lists.
     */
    public ReportInput
    {
        results = List.copyOf(results);
        notes = List.copyOf(notes);
        planned = planned == null ? List.of() : List.copyOf(planned);
    }
}
