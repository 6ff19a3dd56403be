package dev.offcache.range.origin;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link ListPages} against a set model of S3's listing: the entries under a prefix are the keys without a delimiter
 * after the prefix and the distinct prefixes up to the first delimiter of the others, in order, after the start key
 * (a prefix equal to it excluded). Paging through every page with the continuation tokens must give exactly those
 * entries, each page at most {@code maxKeys} of them, none empty, only the last without a token.
 */
class ListPagesProperties
{
    @Provide
    Arbitrary<List<String>> keys()
    {
        // a small alphabet with the delimiter in it, so keys share prefixes and roll up often
        return Arbitraries.strings().withChars("ab/.").ofMinLength(1).ofMaxLength(6).list().ofMaxSize(40)
            .map((list) -> new ArrayList<>(new TreeSet<>(list)));
    }

    @Provide
    Arbitrary<String> fragments()
    {
        return Arbitraries.strings().withChars("ab/").ofMaxLength(3);
    }

    @Property(tries = 500)
    void pagingThroughGivesExactlyTheModelsEntries(
        @ForAll("keys") final List<String> keys,
        @ForAll("fragments") final String prefix,
        @ForAll final boolean grouped,
        @ForAll("fragments") final String startAfter,
        @ForAll @IntRange(min = 1, max = 7) final int maxKeys)
    {
        final String delimiter = grouped ? "/" : null;
        final List<String> expected = model(keys, prefix, delimiter, startAfter.isEmpty() ? null : startAfter);
        final List<String> paged = new ArrayList<>();
        String token = null;
        int pages = 0;
        do
        {
            final ListPages.Selection page = ListPages.select(keys,
                new ListPage.Request(prefix, delimiter, token, startAfter, maxKeys));
            final List<String> entries = new ArrayList<>(page.objectKeys());
            entries.addAll(page.commonPrefixes());
            entries.sort(null);
            assertTrue(entries.size() <= maxKeys, "page of " + entries.size() + " > " + maxKeys);
            assertTrue(!entries.isEmpty() || pages == 0, "an empty page after the first");
            assertTrue(null == page.nextContinuationToken() || entries.size() == maxKeys, "a short page has more");
            paged.addAll(entries);
            token = page.nextContinuationToken();
            pages++;
            assertTrue(pages <= keys.size() + 2, "paging does not end");
        }
        while (null != token);
        assertEquals(expected, paged);
    }

    @Property(tries = 200)
    void zeroKeysIsAnEmptyLastPage(@ForAll("keys") final List<String> keys)
    {
        final ListPages.Selection page = ListPages.select(keys, new ListPage.Request("", "/", null, null, 0));
        assertEquals(List.of(), page.objectKeys());
        assertEquals(List.of(), page.commonPrefixes());
        assertNull(page.nextContinuationToken());
    }

    @Test
    void aTokenNotMadeHereIsRefused()
    {
        for (final String bad : new String[] {"not base64!", "A", "===="})
        {
            assertThrows(IllegalArgumentException.class,
                () -> ListPages.select(List.of("a"), new ListPage.Request("", null, bad, null, 10)), bad);
        }
    }

    private static List<String> model(
        final List<String> keys, final String prefix, final String delimiter, final String startAfter)
    {
        final TreeSet<String> entries = new TreeSet<>();
        for (final String key : keys)
        {
            if (!key.startsWith(prefix) || (null != startAfter && key.compareTo(startAfter) <= 0))
            {
                continue;
            }
            final int at = null == delimiter ? -1 : key.indexOf(delimiter, prefix.length());
            entries.add(at < 0 ? key : key.substring(0, at + 1));
        }
        if (null != startAfter)
        {
            entries.remove(startAfter);
        }
        return new ArrayList<>(entries);
    }
}
