package dev.offcache.server.s3;

import java.util.ArrayList;
import java.util.List;

import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Conditional requests against a model of RFC 9110's evaluation order (which S3 follows), with the headers rendered
 * from structured values the way clients write them (quoted, weak, unquoted as S3 tolerates, lists with odd spacing,
 * {@code *}, valid, future and garbage dates); plus the cases S3's documentation spells out.
 */
class ConditionsProperties
{
    private static final long LAST_MODIFIED = 1_700_000_000_000L;
    private static final long NOW = LAST_MODIFIED + 3_600_000L;
    private static final String ETAG = "\"abc123\"";

    /** One tag of a list: its opaque text, whether weak, whether quoted. */
    record Tag(String opaque, boolean weak, boolean quoted)
    {
        String render()
        {
            return (weak ? "W/" : "") + (quoted ? "\"" + opaque + "\"" : opaque);
        }
    }

    /** An entity-tag header: absent (null tags and not star), {@code *}, or a list. */
    record TagHeader(boolean present, boolean star, List<Tag> tags, String separator)
    {
        String render()
        {
            if (star)
            {
                return "*";
            }
            final List<String> parts = new ArrayList<>();
            for (final Tag tag : tags)
            {
                parts.add(tag.render());
            }
            return String.join(separator, parts);
        }

        boolean matches(final boolean weakComparison)
        {
            if (star)
            {
                return true;
            }
            for (final Tag tag : tags)
            {
                if (tag.opaque().equals("abc123") && (weakComparison || !tag.weak()))
                {
                    return true;
                }
            }
            return false;
        }
    }

    /** A date header: absent, garbage, or a time some seconds from the object's last modification. */
    record DateHeader(int kind, long offsetMillis)
    {
        boolean present()
        {
            return kind != 0;
        }

        boolean valid()
        {
            return kind == 2;
        }

        long time()
        {
            return (LAST_MODIFIED / 1000) * 1000 + offsetMillis;
        }

        String render()
        {
            return kind == 1 ? "yesterday-ish" : AmzDates.formatHttpDate(time());
        }
    }

    @Provide
    Arbitrary<TagHeader> tagHeaders()
    {
        final Arbitrary<Tag> tag = Combinators.combine(Arbitraries.of("abc123", "abc12", "xyz", "abc1234"),
            Arbitraries.of(false, false, true), Arbitraries.of(true, true, false)).as(Tag::new);
        return Combinators.combine(Arbitraries.of(false, true, true), Arbitraries.of(false, false, false, true),
            tag.list().ofMinSize(1).ofMaxSize(3), Arbitraries.of(",", ", ", " ,  ")).as(TagHeader::new);
    }

    @Provide
    Arbitrary<DateHeader> dateHeaders()
    {
        return Combinators.combine(Arbitraries.of(0, 0, 1, 2, 2, 2),
            Arbitraries.of(-2000L, -1000L, 0L, 999L, 1000L, 2000L, 2 * 3_600_000L)).as(DateHeader::new);
    }

    @Property(tries = 2000)
    void evaluationFollowsTheOrderOfTheRfc(
        @ForAll("tagHeaders") final TagHeader ifMatch,
        @ForAll("tagHeaders") final TagHeader ifNoneMatch,
        @ForAll("dateHeaders") final DateHeader ifModifiedSince,
        @ForAll("dateHeaders") final DateHeader ifUnmodifiedSince,
        @ForAll final boolean timeKnown)
    {
        final HttpHeaders headers = new DefaultHttpHeaders();
        if (ifMatch.present())
        {
            headers.set("If-Match", ifMatch.render());
        }
        if (ifNoneMatch.present())
        {
            headers.set("If-None-Match", ifNoneMatch.render());
        }
        if (ifModifiedSince.present())
        {
            headers.set("If-Modified-Since", ifModifiedSince.render());
        }
        if (ifUnmodifiedSince.present())
        {
            headers.set("If-Unmodified-Since", ifUnmodifiedSince.render());
        }
        final long lastModified = timeKnown ? LAST_MODIFIED : -1;
        final Conditions.Result result = Conditions.evaluate(headers, ETAG, lastModified, NOW);

        final Conditions.Outcome expected;
        final long lastModifiedSecond = LAST_MODIFIED / 1000;
        if (ifMatch.present() && !ifMatch.matches(false))
        {
            expected = Conditions.Outcome.PRECONDITION_FAILED;
            assertEquals("If-Match", result.condition());
        }
        else if (!ifMatch.present() && ifUnmodifiedSince.valid() && timeKnown &&
            lastModifiedSecond > Math.floorDiv(ifUnmodifiedSince.time(), 1000))
        {
            expected = Conditions.Outcome.PRECONDITION_FAILED;
            assertEquals("If-Unmodified-Since", result.condition());
        }
        else if (ifNoneMatch.present())
        {
            expected = ifNoneMatch.matches(true) ? Conditions.Outcome.NOT_MODIFIED : Conditions.Outcome.PROCEED;
        }
        else if (ifModifiedSince.valid() && ifModifiedSince.time() <= NOW && timeKnown &&
            lastModifiedSecond <= Math.floorDiv(ifModifiedSince.time(), 1000))
        {
            expected = Conditions.Outcome.NOT_MODIFIED;
        }
        else
        {
            expected = Conditions.Outcome.PROCEED;
        }
        assertEquals(expected, result.outcome(), headers.toString());
    }

    @Test
    void theCasesS3Documents()
    {
        final String before = AmzDates.formatHttpDate(LAST_MODIFIED - 60_000);
        final String after = AmzDates.formatHttpDate(LAST_MODIFIED + 60_000);
        // If-Match true, If-Unmodified-Since false: 200
        assertEquals(Conditions.Outcome.PROCEED, outcome("If-Match", ETAG, "If-Unmodified-Since", before));
        // If-None-Match false, If-Modified-Since true: 304
        assertEquals(Conditions.Outcome.NOT_MODIFIED, outcome("If-None-Match", ETAG, "If-Modified-Since", before));
        // 412 wins over 304
        assertEquals(Conditions.Outcome.PRECONDITION_FAILED, outcome("If-Match", "\"other\"", "If-None-Match", ETAG));
        assertEquals(Conditions.Outcome.PRECONDITION_FAILED, outcome("If-Unmodified-Since", before,
            "If-Modified-Since", after));
        assertEquals(Conditions.Outcome.NOT_MODIFIED, outcome("If-Modified-Since", after));
        assertEquals(Conditions.Outcome.PROCEED, outcome("If-Modified-Since", before));
        assertEquals(Conditions.Outcome.PROCEED, outcome("If-Match", "abc123"), "S3 takes an unquoted tag");
        assertEquals(Conditions.Outcome.PRECONDITION_FAILED, outcome("If-Match", "W/\"abc123\""),
            "If-Match compares strongly");
        assertEquals(Conditions.Outcome.NOT_MODIFIED, outcome("If-None-Match", "W/\"abc123\""),
            "If-None-Match compares weakly");
        assertEquals(Conditions.Outcome.NOT_MODIFIED, outcome("If-None-Match", "*"));
        assertEquals(Conditions.Outcome.PROCEED, outcome("If-Modified-Since", "not a date"), "ignored");
    }

    private static Conditions.Outcome outcome(final String... namesAndValues)
    {
        final HttpHeaders headers = new DefaultHttpHeaders();
        for (int i = 0; i < namesAndValues.length; i += 2)
        {
            headers.set(namesAndValues[i], namesAndValues[i + 1]);
        }
        return Conditions.evaluate(headers, ETAG, LAST_MODIFIED, NOW).outcome();
    }
}
