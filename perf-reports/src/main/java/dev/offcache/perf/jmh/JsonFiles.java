package dev.offcache.perf.jmh;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Reads the JSON input files of the tool (JMH results, measurement files), turning every way a file can be unusable
 * (missing, unreadable, empty, not JSON) into a {@link ResultFileException} that names the file and, for bad JSON,
 * the line and column.
 */
public final class JsonFiles
{
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private JsonFiles()
    {
    }

    /**
     * Reads and parses a JSON file.
     *
     * @param file         the file.
     * @param emptyProblem what to say when the file is empty or blank.
     * @return the parsed document, never null.
     * @throws ResultFileException when the file is missing, unreadable, empty or not valid JSON.
     */
    public static JsonNode read(final Path file, final String emptyProblem)
    {
        final byte[] bytes;
        try
        {
            bytes = Files.readAllBytes(file);
        }
        catch (final NoSuchFileException ex)
        {
            throw new ResultFileException(file, "no such file");
        }
        catch (final IOException ex)
        {
            throw new ResultFileException(file, "cannot be read: " + ex, ex);
        }
        if (new String(bytes, StandardCharsets.UTF_8).isBlank())
        {
            throw new ResultFileException(file, emptyProblem);
        }
        final JsonNode root;
        try
        {
            root = MAPPER.readTree(bytes);
        }
        catch (final JsonProcessingException ex)
        {
            final String where = ex.getLocation() == null ? "" :
                " at line " + ex.getLocation().getLineNr() + ", column " + ex.getLocation().getColumnNr();
            throw new ResultFileException(file, "is not valid JSON: " + ex.getOriginalMessage() + where, ex);
        }
        catch (final IOException ex)
        {
            throw new ResultFileException(file, "cannot be parsed: " + ex, ex);
        }
        if (root == null || root.isMissingNode())
        {
            throw new ResultFileException(file, emptyProblem);
        }
        return root;
    }
}
