package dev.offcache.perf.report;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

/**
 * What {@code offcache-perf run} records beside the JMH results ({@value #FILE_NAME}), so a report written later
 * from the same JSON still names the machine, the command and the load during the run.
 *
 * @param profile     the profile name.
 * @param rerunCommand the {@code offcache-perf run} command that reruns the run from the repository root (profile,
 *                    filters, JMH options, measurement files, output directory), with paths relative to the root;
 *                    null in files written before it was recorded.
 * @param command     the benchmark command it ran, with paths relative to the repository root.
 * @param startedAt   start time, ISO-8601 UTC.
 * @param finishedAt  end time, ISO-8601 UTC.
 * @param elapsedSeconds wall time of the run.
 * @param exitCode    exit code of the benchmark process.
 * @param machine     the machine, taken at the start.
 * @param loadAfter   the load averages at the end.
 * @param planned     the benchmarks the run was to measure ({@code -l}); missing results are reported.
 */
public record RunInfo(String profile, String rerunCommand, String command, String startedAt, String finishedAt,
    long elapsedSeconds, int exitCode, MachineInfo machine, String loadAfter, List<String> planned)
{
    /** File name next to the results. */
    public static final String FILE_NAME = "run-info.json";

    private static final ObjectMapper MAPPER = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    /**
     * Freezes the list.
     */
    public RunInfo
    {
        planned = planned == null ? List.of() : List.copyOf(planned);
    }

    /**
     * Writes this record as JSON.
     *
     * @param file target file.
     * @throws IOException on write failure.
     */
    public void write(final Path file) throws IOException
    {
        MAPPER.writeValue(file.toFile(), this);
    }

    /**
     * Reads the run information stored beside a result file, if there is any.
     *
     * @param resultFile the JMH JSON file.
     * @return the information, or null when there is no readable {@value #FILE_NAME} beside it.
     */
    public static RunInfo besides(final Path resultFile)
    {
        final Path parent = resultFile.toAbsolutePath().getParent();
        final Path file = parent == null ? null : parent.resolve(FILE_NAME);
        if (file == null || !Files.isRegularFile(file))
        {
            return null;
        }
        try
        {
            return MAPPER.readValue(file.toFile(), RunInfo.class);
        }
        catch (final IOException ex)
        {
            return null;
        }
    }
}
