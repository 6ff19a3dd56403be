package dev.offcache.server.http;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.offcache.range.engine.ByteRange;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.LongRange;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Range header parsing and key validation against small, obviously-right reference models. */
class RequestParsingProperties
{
    private static final Pattern SINGLE = Pattern.compile(
        "bytes=[\\x00-\\x20]*(\\d{0,18})[\\x00-\\x20]*-[\\x00-\\x20]*(\\d{0,18})[\\x00-\\x20]*");

    @Provide
    Arbitrary<String> rangeHeaders()
    {
        final Arbitrary<String> number = Arbitraries.oneOf(
            Arbitraries.longs().between(0, 5000).map(String::valueOf),
            Arbitraries.of("", "x", "-1", "999999999999999999999", " 7"));
        return Arbitraries.oneOf(
            number.flatMap((a) -> number.map((b) -> "bytes=" + a + "-" + b)),
            number.map((a) -> "bytes=" + a + "-1,2-3"),
            Arbitraries.strings().ofMaxLength(20));
    }

    @Property(tries = 2000)
    void rangeParsingMatchesTheModel(
        @ForAll("rangeHeaders") final String header, @ForAll @LongRange(min = 0, max = 4000) final long size)
    {
        final long[] expected = model(header, size);
        ByteRange parsed = null;
        RangeHeader.RangeException error = null;
        try
        {
            parsed = RangeHeader.parse(header, size);
        }
        catch (final RangeHeader.RangeException ex)
        {
            error = ex;
        }
        if (expected == null)
        {
            assertNotNull(error, "malformed: " + header);
            assertTrue(!error.unsatisfiable(), "400 for " + header);
        }
        else if (expected.length == 0)
        {
            assertNotNull(error, "unsatisfiable: " + header + " of " + size);
            assertTrue(error.unsatisfiable(), "416 for " + header + " of " + size);
        }
        else
        {
            assertNull(error, header + " of " + size);
            assertEquals(expected[0], parsed.position(), header);
            assertEquals(expected[1], parsed.length(), header);
            assertTrue(parsed.length() >= 1 && parsed.position() + parsed.length() <= size);
        }
    }

    /** null = malformed (400), empty = unsatisfiable (416), else {start, length}. */
    private static long[] model(final String header, final long size)
    {
        final Matcher m = SINGLE.matcher(header);
        if (!m.matches() || (m.group(1).isEmpty() && m.group(2).isEmpty()))
        {
            return null;
        }
        if (m.group(1).isEmpty())
        {
            final long suffix = Long.parseLong(m.group(2));
            return suffix == 0 || size == 0 ? new long[0] : new long[] {size - Math.min(suffix, size),
                Math.min(suffix, size)};
        }
        final long start = Long.parseLong(m.group(1));
        final long end = m.group(2).isEmpty() ? Long.MAX_VALUE : Long.parseLong(m.group(2));
        if (end < start)
        {
            return null;
        }
        if (start >= size)
        {
            return new long[0];
        }
        return new long[] {start, Math.min(end, size - 1) - start + 1};
    }

    private static boolean valid(final String key, final int maxLength)
    {
        return !key.isEmpty() && key.getBytes(StandardCharsets.UTF_8).length <= maxLength && !key.startsWith("/") &&
            key.chars().noneMatch((c) -> c < 0x20 || c == 0x7F || c == '\\') &&
            List.of(key.split("/", -1)).stream().noneMatch((s) -> s.isEmpty() || s.equals(".") || s.equals(".."));
    }

    @Provide
    Arbitrary<String> keys()
    {
        return Arbitraries.of("a", "b", ".", "..", "...", "", "c.d", "e f", "%", "\\", "\u0000", "\u00e9", "x/y")
            .list().ofMinSize(1).ofMaxSize(5).map((parts) -> String.join("/", parts));
    }

    @Property(tries = 2000)
    void keyPolicyMatchesTheModel(@ForAll("keys") final String key)
    {
        final ObjectKeyPolicy policy = new ObjectKeyPolicy(12, List.of());
        assertEquals(valid(key, 12), null == policy.problemWith(key), "key '" + key + "': " + policy.problemWith(key));
        final ObjectKeyPolicy prefixed = new ObjectKeyPolicy(20, List.of("zz/"));
        assertEquals(valid("zz/" + key, 20), null == prefixed.problemWith("zz/" + key), "under the prefix: " + key);
        assertTrue(null != prefixed.problemWith(key) || key.startsWith("zz/"), "outside the prefix: " + key);
    }
}
