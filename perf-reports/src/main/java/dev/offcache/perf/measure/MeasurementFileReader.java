package dev.offcache.perf.measure;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;

import dev.offcache.perf.jmh.JsonFiles;
import dev.offcache.perf.jmh.Metric;
import dev.offcache.perf.jmh.ResultFileException;

/**
 * Reads a measurement file ({@value MeasurementFile#FORMAT}) and rejects anything that is not exactly that format
 * with a {@link ResultFileException} naming the file, the entry and the problem: a typo in a field name or a value
 * in the wrong unit must not turn silently into a wrong report.
 */
public final class MeasurementFileReader
{
    private static final Set<String> FILE_FIELDS = Set.of("format", "suite", "title", "command", "machine", "load",
        "startedAt", "notes", "measurements");
    private static final Set<String> MEASUREMENT_FIELDS = Set.of("case", "metric", "unit", "better", "impl", "value",
        "low", "high", "values");
    private static final Set<String> LOAD_FIELDS = Set.of("start", "end");
    private static final Pattern SUITE_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]*");

    private MeasurementFileReader()
    {
    }

    /**
     * Reads a file.
     *
     * @param file the file.
     * @return its contents.
     * @throws ResultFileException when the file is missing, empty, not JSON or not a valid measurement file.
     */
    public static MeasurementFile read(final Path file)
    {
        final JsonNode root = JsonFiles.read(file, "is empty: no measurements");
        try
        {
            return parse(file, root);
        }
        catch (final IllegalArgumentException ex)
        {
            throw new ResultFileException(file, ex.getMessage(), ex);
        }
    }

    private static MeasurementFile parse(final Path file, final JsonNode root)
    {
        if (!root.isObject())
        {
            throw new IllegalArgumentException("is not a measurement file: expected a JSON object with \"format\": \"" +
                MeasurementFile.FORMAT + "\"");
        }
        final JsonNode format = root.get("format");
        if (format == null || !MeasurementFile.FORMAT.equals(format.asText()))
        {
            throw new IllegalArgumentException("is not a measurement file: \"format\" must be \"" +
                MeasurementFile.FORMAT + "\"" + (format == null ? " (missing)" : ", not " + format));
        }
        unknownFields(root, FILE_FIELDS, "");
        final String suite = requiredText(root, "suite", "");
        if (!SUITE_NAME.matcher(suite).matches())
        {
            throw new IllegalArgumentException("\"suite\" must be letters, digits, '.', '_' or '-' (it names " +
                "charts), not \"" + suite + "\"");
        }
        final String command = requiredText(root, "command", "");
        String loadAtStart = null;
        String loadAtEnd = null;
        final JsonNode load = root.get("load");
        if (load != null)
        {
            if (!load.isObject())
            {
                throw new IllegalArgumentException(
                    "\"load\" must be an object {\"start\": \"1m 5m 15m\", \"end\": \"1m 5m 15m\"}");
            }
            unknownFields(load, LOAD_FIELDS, "\"load\"");
            loadAtStart = optionalText(load, "start", "\"load\"");
            loadAtEnd = optionalText(load, "end", "\"load\"");
        }
        final List<String> notes = new ArrayList<>();
        final JsonNode notesNode = root.get("notes");
        if (notesNode != null)
        {
            if (!notesNode.isArray())
            {
                throw new IllegalArgumentException("\"notes\" must be an array of strings");
            }
            for (final JsonNode note : notesNode)
            {
                if (!note.isTextual())
                {
                    throw new IllegalArgumentException("\"notes\" must be an array of strings, not " + note);
                }
                notes.add(note.asText());
            }
        }
        final JsonNode array = root.get("measurements");
        if (array == null || !array.isArray() || array.isEmpty())
        {
            throw new IllegalArgumentException("\"measurements\" must be a non-empty array");
        }
        final List<Measurement> measurements = new ArrayList<>(array.size());
        final Map<String, Integer> seen = new HashMap<>();
        final Map<String, Measurement> quantities = new HashMap<>();
        for (int i = 0; i < array.size(); i++)
        {
            final String where = "measurements[" + i + "]";
            final Measurement measurement = parseMeasurement(array.get(i), where);
            final Integer earlier = seen.putIfAbsent(measurement.key(), i);
            if (earlier != null)
            {
                throw new IllegalArgumentException(where + " repeats measurements[" + earlier + "] (" +
                    describe(measurement) + "): give repeats as \"values\": [...] in one entry");
            }
            final Measurement sameQuantity = quantities.putIfAbsent(measurement.caseName() + "\u0000" +
                measurement.metric(), measurement);
            if (sameQuantity != null && (!sameQuantity.unit().equals(measurement.unit()) ||
                sameQuantity.higherIsBetter() != measurement.higherIsBetter()))
            {
                throw new IllegalArgumentException(where + " (" + describe(measurement) + ") has unit \"" +
                    measurement.unit() + "\", better \"" + better(measurement) + "\" but \"" + sameQuantity.impl() +
                    "\" on the same case and metric has \"" + sameQuantity.unit() + "\", \"" + better(sameQuantity) +
                    "\": the implementations of one case and metric must be measured alike");
            }
            measurements.add(measurement);
        }
        return new MeasurementFile(file, suite, optionalText(root, "title", ""), command,
            optionalText(root, "machine", ""), loadAtStart, loadAtEnd,
            optionalText(root, "startedAt", ""), notes, measurements);
    }

    private static Measurement parseMeasurement(final JsonNode node, final String where)
    {
        if (!node.isObject())
        {
            throw new IllegalArgumentException(where + " must be an object, not " + node);
        }
        final String caseName = requiredText(node, "case", where);
        final String metric = requiredText(node, "metric", where);
        final String impl = requiredText(node, "impl", where);
        final String context = where + " (\"" + caseName + "\" / " + metric + " / " + impl + ")";
        unknownFields(node, MEASUREMENT_FIELDS, context);
        final String unit = requiredText(node, "unit", context);
        final String better = requiredText(node, "better", context);
        if (!"higher".equals(better) && !"lower".equals(better))
        {
            throw new IllegalArgumentException(context + ": \"better\" must be \"higher\" or \"lower\", not \"" +
                better + "\"");
        }
        final JsonNode value = node.get("value");
        final JsonNode values = node.get("values");
        if ((value == null) == (values == null))
        {
            throw new IllegalArgumentException(context + ": give either \"value\" (one number, optionally with " +
                "\"low\" and \"high\") or \"values\" (the repeats)");
        }
        final Metric metricValue;
        final int samples;
        if (value != null)
        {
            final double score = number(value, context, "value");
            final JsonNode low = node.get("low");
            final JsonNode high = node.get("high");
            if ((low == null) != (high == null))
            {
                throw new IllegalArgumentException(context + ": give both \"low\" and \"high\", or neither");
            }
            if (low == null)
            {
                metricValue = new Metric(score, Double.NaN, Double.NaN, Double.NaN, unit, Map.of());
            }
            else
            {
                final double lower = number(low, context, "low");
                final double upper = number(high, context, "high");
                if (lower > score || score > upper)
                {
                    throw new IllegalArgumentException(context + ": needs low <= value <= high, not " + lower +
                        " <= " + score + " <= " + upper);
                }
                metricValue = new Metric(score, (upper - lower) / 2, lower, upper, unit, Map.of());
            }
            samples = 1;
        }
        else
        {
            if (node.has("low") || node.has("high"))
            {
                throw new IllegalArgumentException(context + ": \"low\" and \"high\" go with \"value\"; with " +
                    "\"values\" the interval is the repeats' minimum and maximum");
            }
            if (!values.isArray() || values.isEmpty())
            {
                throw new IllegalArgumentException(context + ": \"values\" must be a non-empty array of numbers");
            }
            double sum = 0;
            double min = Double.POSITIVE_INFINITY;
            double max = Double.NEGATIVE_INFINITY;
            for (final JsonNode sample : values)
            {
                final double v = number(sample, context, "values");
                sum += v;
                min = Math.min(min, v);
                max = Math.max(max, v);
            }
            samples = values.size();
            metricValue = samples == 1 ? new Metric(sum, Double.NaN, Double.NaN, Double.NaN, unit, Map.of()) :
                new Metric(sum / samples, (max - min) / 2, min, max, unit, Map.of());
        }
        return new Measurement(caseName, metric, impl, "higher".equals(better), metricValue, samples);
    }

    private static void unknownFields(final JsonNode node, final Set<String> known, final String where)
    {
        final Iterator<String> names = node.fieldNames();
        while (names.hasNext())
        {
            final String name = names.next();
            if (!known.contains(name))
            {
                throw new IllegalArgumentException(prefix(where) + "unknown field \"" + name + "\" (known: " +
                    String.join(", ", known.stream().sorted().toList()) + ")");
            }
        }
    }

    private static String requiredText(final JsonNode node, final String field, final String where)
    {
        final JsonNode value = node.get(field);
        if (value == null || !value.isTextual() || value.asText().isBlank())
        {
            throw new IllegalArgumentException(prefix(where) + "\"" + field +
                "\" is missing or not a non-empty string");
        }
        return value.asText();
    }

    private static String optionalText(final JsonNode node, final String field, final String where)
    {
        final JsonNode value = node.get(field);
        if (value == null || value.isNull())
        {
            return null;
        }
        if (!value.isTextual())
        {
            throw new IllegalArgumentException(prefix(where) + "\"" + field + "\" must be a string, not " + value);
        }
        return value.asText();
    }

    private static double number(final JsonNode node, final String where, final String field)
    {
        if (node == null || !node.isNumber() || !Double.isFinite(node.doubleValue()))
        {
            throw new IllegalArgumentException(where + ": \"" + field + "\" must hold finite JSON numbers, not " +
                node);
        }
        return node.doubleValue();
    }

    private static String prefix(final String where)
    {
        return where.isEmpty() ? "" : where + ": ";
    }

    private static String describe(final Measurement measurement)
    {
        return "\"" + measurement.caseName() + "\" / " + measurement.metric() + " / " + measurement.impl();
    }

    private static String better(final Measurement measurement)
    {
        return measurement.higherIsBetter() ? "higher" : "lower";
    }
}
