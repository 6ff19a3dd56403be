package dev.offcache.range.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/** The text of every page of the repository's {@code docs/}, for tests that check the docs name what the code does. */
public final class DocsPages
{
    /** {@code docs/} seen from a module's directory, where Surefire runs. */
    public static final Path DOCS = Path.of("..", "docs");

    private DocsPages()
    {
    }

    /**
     * Every {@code docs/*.md} page, in name order, one after the other.
     *
     * @return the text.
     * @throws IOException when a page cannot be read.
     */
    public static String all() throws IOException
    {
        final StringBuilder all = new StringBuilder();
        try (Stream<Path> pages = Files.list(DOCS))
        {
            for (final Path page : pages.filter((p) -> p.toString().endsWith(".md")).sorted().toList())
            {
                all.append(Files.readString(page)).append('\n');
            }
        }
        return all.toString();
    }

    /**
     * The families not named in the docs.
     *
     * @param exported the families the code exports.
     * @param docs     the docs' text ({@link #all()}).
     * @return those of {@code exported} the docs do not name, sorted.
     */
    public static Set<String> undocumented(final Collection<String> exported, final String docs)
    {
        final Set<String> missing = new TreeSet<>();
        for (final String family : exported)
        {
            if (!docs.contains(family))
            {
                missing.add(family);
            }
        }
        return missing;
    }

    /**
     * The metric names in the docs that the code does not export: each match of {@code names}, unless it ends in
     * {@code _} or is followed by {@code *} (a prefix), or is an exported family or a histogram's
     * {@code _bucket}/{@code _count}/{@code _sum} series of one.
     *
     * @param names    what a metric name of interest looks like.
     * @param exported the families the code exports.
     * @param docs     the docs' text.
     * @return the names, sorted.
     */
    public static Set<String> notExported(final Pattern names, final Collection<String> exported, final String docs)
    {
        final Set<String> unknown = new TreeSet<>();
        final Matcher matcher = names.matcher(docs);
        while (matcher.find())
        {
            final String name = matcher.group();
            final boolean prefix = name.endsWith("_") || docs.startsWith("*", matcher.end());
            if (!prefix && !exported.contains(name) && !exported.contains(name.replaceAll("_(bucket|count|sum)$", "")))
            {
                unknown.add(name);
            }
        }
        return unknown;
    }
}
