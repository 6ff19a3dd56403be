package dev.offcache.range.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
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
}
