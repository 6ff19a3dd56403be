package dev.offcache.range.testing;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * A page in the Prometheus text format 0.0.4, parsed as a scraper reads it: {@code # HELP} and {@code # TYPE} per
 * family, and samples as name, label set (escapes undone) and value, so tests assert exact values of exact series
 * instead of searching for substrings. Rejects lines that are not the format.
 */
public final class Exposition
{
    /** One sample: its name (with any suffix such as {@code _bucket}), labels by name, value. */
    public record Sample(String name, Map<String, String> labels, double value)
    {
    }

    private final Map<String, String> types = new LinkedHashMap<>();
    private final Map<String, String> helps = new LinkedHashMap<>();
    private final List<Sample> samples = new ArrayList<>();
    private final String text;

    private Exposition(final String text)
    {
        this.text = text;
    }

    /**
     * Parses a page.
     *
     * @param text the exposition text.
     * @return the page.
     * @throws IllegalArgumentException on a line that is not the text format.
     */
    public static Exposition parse(final String text)
    {
        final Exposition page = new Exposition(text);
        for (final String line : text.split("\n"))
        {
            if (line.isEmpty())
            {
                continue;
            }
            if (line.startsWith("# HELP ") || line.startsWith("# TYPE "))
            {
                final String rest = line.substring(7);
                final int space = rest.indexOf(' ');
                if (space <= 0)
                {
                    throw new IllegalArgumentException("bad comment line: " + line);
                }
                (line.charAt(2) == 'H' ? page.helps : page.types).put(rest.substring(0, space),
                    rest.substring(space + 1));
            }
            else if (line.startsWith("#"))
            {
                continue;
            }
            else
            {
                page.samples.add(sample(line));
            }
        }
        return page;
    }

    private static Sample sample(final String line)
    {
        int at = 0;
        while (at < line.length() && line.charAt(at) != '{' && line.charAt(at) != ' ')
        {
            at++;
        }
        final String name = line.substring(0, at);
        final Map<String, String> labels = new TreeMap<>();
        if (at < line.length() && line.charAt(at) == '{')
        {
            at++;
            while (line.charAt(at) != '}')
            {
                final int equals = line.indexOf('=', at);
                final String label = line.substring(at, equals).trim();
                if (line.charAt(equals + 1) != '"')
                {
                    throw new IllegalArgumentException("unquoted label value: " + line);
                }
                final StringBuilder value = new StringBuilder();
                int i = equals + 2;
                for (; line.charAt(i) != '"'; i++)
                {
                    char c = line.charAt(i);
                    if (c == '\\')
                    {
                        c = line.charAt(++i);
                        c = c == 'n' ? '\n' : c;
                    }
                    value.append(c);
                }
                labels.put(label, value.toString());
                at = i + 1;
                if (line.charAt(at) == ',')
                {
                    at++;
                }
            }
            at++;
        }
        final String[] rest = line.substring(at).trim().split(" ");
        if (name.isEmpty() || rest.length < 1 || rest.length > 2)
        {
            throw new IllegalArgumentException("not a sample line: " + line);
        }
        return new Sample(name, labels, parseValue(rest[0]));
    }

    private static double parseValue(final String value)
    {
        return switch (value)
        {
            case "+Inf" -> Double.POSITIVE_INFINITY;
            case "-Inf" -> Double.NEGATIVE_INFINITY;
            case "NaN" -> Double.NaN;
            default -> Double.parseDouble(value);
        };
    }

    /**
     * The families with a {@code # TYPE} line, and their types.
     *
     * @return family to type, in page order.
     */
    public Map<String, String> types()
    {
        return types;
    }

    /**
     * The families with a {@code # HELP} line, and their help.
     *
     * @return family to help, in page order.
     */
    public Map<String, String> helps()
    {
        return helps;
    }

    /**
     * Every sample.
     *
     * @return the samples in page order.
     */
    public List<Sample> samples()
    {
        return samples;
    }

    /**
     * The value of the one sample with exactly this name and these labels.
     *
     * @param name   the sample's name.
     * @param labels label names and values, alternating; the sample has exactly these.
     * @return its value.
     * @throws AssertionError when there is no such sample, or more than one.
     */
    public double value(final String name, final String... labels)
    {
        final Map<String, String> wanted = new TreeMap<>();
        for (int i = 0; i < labels.length; i += 2)
        {
            wanted.put(labels[i], labels[i + 1]);
        }
        Sample found = null;
        for (final Sample sample : samples)
        {
            if (sample.name.equals(name) && sample.labels.equals(wanted))
            {
                if (found != null)
                {
                    throw new AssertionError("two samples " + name + wanted + " in\n" + text);
                }
                found = sample;
            }
        }
        if (found == null)
        {
            throw new AssertionError("no sample " + name + wanted + " in\n" + text);
        }
        return found.value;
    }

    /**
     * The sum over every sample of a name, whatever its labels.
     *
     * @param name the sample's name.
     * @return the sum; 0 when there is none.
     */
    public double sum(final String name)
    {
        double sum = 0;
        for (final Sample sample : samples)
        {
            if (Objects.equals(sample.name, name))
            {
                sum += sample.value;
            }
        }
        return sum;
    }

    @Override
    public String toString()
    {
        return text;
    }
}
