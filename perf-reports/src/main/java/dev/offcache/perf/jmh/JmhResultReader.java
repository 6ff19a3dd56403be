package dev.offcache.perf.jmh;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Reads a JMH result file written with {@code -rf json}. Rejects anything else with a {@link ResultFileException}
 * naming the file and the problem.
 */
public final class JmhResultReader
{
    private JmhResultReader()
    {
    }

    /**
     * Reads every result of a file.
     *
     * @param file a JMH JSON result file.
     * @return the results in file order; never empty.
     * @throws ResultFileException when the file is missing, empty, malformed or not JMH results.
     */
    public static List<JmhResult> read(final Path file)
    {
        final JsonNode root = JsonFiles.read(file,
            "is empty: no JMH results (JMH leaves an empty file when no benchmark matched or the run failed)");
        if (root == null || !root.isArray())
        {
            throw new ResultFileException(file, "is not a JMH result file: expected a JSON array of results " +
                "(java -jar benchmarks.jar ... -rf json -rff FILE)");
        }
        if (root.isEmpty())
        {
            throw new ResultFileException(file, "holds an empty array: no JMH results");
        }
        final List<JmhResult> results = new ArrayList<>(root.size());
        for (int i = 0; i < root.size(); i++)
        {
            try
            {
                results.add(parseResult(root.get(i)));
            }
            catch (final IllegalArgumentException ex)
            {
                throw new ResultFileException(file, "result #" + (i + 1) + " is not a JMH result: " + ex.getMessage(),
                    ex);
            }
        }
        return results;
    }

    private static JmhResult parseResult(final JsonNode node)
    {
        if (!node.isObject())
        {
            throw new IllegalArgumentException("expected an object");
        }
        final String benchmark = text(node, "benchmark");
        final String mode = text(node, "mode");
        final Map<String, String> params = new LinkedHashMap<>();
        final JsonNode paramsNode = node.get("params");
        if (paramsNode != null && paramsNode.isObject())
        {
            for (final Map.Entry<String, JsonNode> field : paramsNode.properties())
            {
                params.put(field.getKey(), field.getValue().asText());
            }
        }
        final JsonNode primaryNode = node.get("primaryMetric");
        if (primaryNode == null || !primaryNode.isObject())
        {
            throw new IllegalArgumentException("\"" + benchmark + "\" has no \"primaryMetric\" object");
        }
        final Metric primary = parseMetric(primaryNode, benchmark + " primaryMetric");
        final Map<String, Metric> secondary = new LinkedHashMap<>();
        final JsonNode secondaryNode = node.get("secondaryMetrics");
        if (secondaryNode != null && secondaryNode.isObject())
        {
            for (final Map.Entry<String, JsonNode> field : secondaryNode.properties())
            {
                // Older JMH versions prefixed profiler metrics with a middle dot: "·gc.alloc.rate.norm".
                final String name = field.getKey().startsWith("\u00b7") ? field.getKey().substring(1) : field.getKey();
                secondary.put(name, parseMetric(field.getValue(), benchmark + " " + field.getKey()));
            }
        }
        final List<String> jvmArgs = new ArrayList<>();
        final JsonNode argsNode = node.get("jvmArgs");
        if (argsNode != null && argsNode.isArray())
        {
            argsNode.forEach(a -> jvmArgs.add(a.asText()));
        }
        final JmhResult.Environment environment = new JmhResult.Environment(
            node.path("jmhVersion").asText("?"), node.path("jdkVersion").asText("?"), node.path("vmName").asText("?"),
            node.path("vmVersion").asText("?"), jvmArgs,
            node.path("warmupIterations").asInt(0) + " x " + node.path("warmupTime").asText("?"),
            node.path("measurementIterations").asInt(0) + " x " + node.path("measurementTime").asText("?"));
        return new JmhResult(benchmark, mode, node.path("threads").asInt(1), node.path("forks").asInt(0), params,
            primary, secondary, environment);
    }

    private static Metric parseMetric(final JsonNode node, final String what)
    {
        if (!node.isObject())
        {
            throw new IllegalArgumentException(what + " is not an object");
        }
        final double score = number(node.get("score"), what + ".score");
        if (Double.isNaN(score))
        {
            throw new IllegalArgumentException(what + ".score is missing or NaN");
        }
        final double error = node.has("scoreError") ? number(node.get("scoreError"), what + ".scoreError") :
            Double.NaN;
        double lower = Double.NaN;
        double upper = Double.NaN;
        final JsonNode confidence = node.get("scoreConfidence");
        if (confidence != null && confidence.isArray() && confidence.size() == 2)
        {
            lower = number(confidence.get(0), what + ".scoreConfidence[0]");
            upper = number(confidence.get(1), what + ".scoreConfidence[1]");
        }
        final Map<String, Double> percentiles = new LinkedHashMap<>();
        final JsonNode percentilesNode = node.get("scorePercentiles");
        if (percentilesNode != null && percentilesNode.isObject())
        {
            for (final Map.Entry<String, JsonNode> field : percentilesNode.properties())
            {
                percentiles.put(field.getKey(), number(field.getValue(), what + ".scorePercentiles"));
            }
        }
        final JsonNode unit = node.get("scoreUnit");
        if (unit == null || !unit.isTextual() || unit.asText().isBlank())
        {
            throw new IllegalArgumentException(what + ".scoreUnit is missing");
        }
        return new Metric(score, error, lower, upper, unit.asText(), percentiles);
    }

    /** JMH writes finite numbers as JSON numbers and NaN / infinities as strings. */
    private static double number(final JsonNode node, final String what)
    {
        if (node == null || node.isNull())
        {
            throw new IllegalArgumentException(what + " is missing");
        }
        if (node.isNumber())
        {
            return node.doubleValue();
        }
        if (node.isTextual())
        {
            try
            {
                return Double.parseDouble(node.asText());
            }
            catch (final NumberFormatException ex)
            {
                throw new IllegalArgumentException(what + " is not a number: \"" + node.asText() + "\"", ex);
            }
        }
        throw new IllegalArgumentException(what + " is not a number: " + node);
    }

    private static String text(final JsonNode node, final String field)
    {
        final JsonNode value = node.get(field);
        if (value == null || !value.isTextual() || value.asText().isBlank())
        {
            throw new IllegalArgumentException("field \"" + field + "\" is missing");
        }
        return value.asText();
    }
}
