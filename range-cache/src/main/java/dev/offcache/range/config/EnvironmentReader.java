package dev.offcache.range.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * Parses {@code OFFCACHE_*} environment values; every failure names the variable and the value.
 */
public final class EnvironmentReader
{
    private final Map<String, String> env;

    public EnvironmentReader(final Map<String, String> env)
    {
        this.env = env;
    }

    public Optional<String> string(final String name)
    {
        final String value = env.get(name);
        if (value == null)
        {
            return Optional.empty();
        }
        if (value.isBlank())
        {
            throw invalid(name, value, "must not be blank");
        }
        return Optional.of(value.trim());
    }

    public OptionalLong bytes(final String name, final long unit, final long maxUnits)
    {
        final Optional<String> value = string(name);
        if (value.isEmpty())
        {
            return OptionalLong.empty();
        }
        final long units = parseLong(name, value.get());
        if (units < 0 || units > maxUnits)
        {
            throw invalid(name, value.get(), "must be in [0, " + maxUnits + "]");
        }
        return OptionalLong.of(units * unit);
    }

    public OptionalInt size(final String name)
    {
        final Optional<String> value = string(name);
        if (value.isEmpty())
        {
            return OptionalInt.empty();
        }
        final String text = value.get().toUpperCase(Locale.ROOT);
        long multiplier = 1;
        String digits = text;
        if (text.endsWith("KIB") || text.endsWith("K"))
        {
            multiplier = 1L << 10;
            digits = text.substring(0, text.indexOf('K'));
        }
        else if (text.endsWith("MIB") || text.endsWith("M"))
        {
            multiplier = 1L << 20;
            digits = text.substring(0, text.indexOf('M'));
        }
        final long bytes = parseLong(name, digits.trim()) * multiplier;
        if (bytes <= 0 || bytes > Integer.MAX_VALUE)
        {
            throw invalid(name, value.get(), "must be a positive size in bytes (suffix K/KiB or M/MiB allowed)");
        }
        return OptionalInt.of((int) bytes);
    }

    public OptionalInt positiveInt(final String name)
    {
        return intAtLeast(name, 1);
    }

    public OptionalInt nonNegativeInt(final String name)
    {
        return intAtLeast(name, 0);
    }

    public Optional<List<String>> list(final String name)
    {
        final String value = env.get(name);
        if (value == null)
        {
            return Optional.empty();
        }
        final List<String> items = new ArrayList<>();
        for (final String item : value.split(","))
        {
            final String trimmed = item.trim();
            if (trimmed.isEmpty())
            {
                throw invalid(name, value, "has an empty entry");
            }
            items.add(trimmed);
        }
        return Optional.of(List.copyOf(items));
    }

    private OptionalInt intAtLeast(final String name, final int min)
    {
        final Optional<String> value = string(name);
        if (value.isEmpty())
        {
            return OptionalInt.empty();
        }
        final long parsed = parseLong(name, value.get());
        if (parsed < min || parsed > Integer.MAX_VALUE)
        {
            throw invalid(name, value.get(), "must be an integer >= " + min);
        }
        return OptionalInt.of((int) parsed);
    }

    private static long parseLong(final String name, final String value)
    {
        try
        {
            return Long.parseLong(value.trim());
        }
        catch (final NumberFormatException ex)
        {
            throw invalid(name, value, "is not a number");
        }
    }

    private static IllegalArgumentException invalid(final String name, final String value, final String why)
    {
        return new IllegalArgumentException("invalid " + name + "='" + value + "': " + why);
    }
}
