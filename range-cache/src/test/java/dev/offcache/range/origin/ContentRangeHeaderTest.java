package dev.offcache.range.origin;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class ContentRangeHeaderTest
{
    @Test
    void totalIsTheCompleteLengthWhateverTheRangeAndTheUnitsCase()
    {
        assertEquals(1000, ContentRangeHeader.total("bytes 0-99/1000"));
        assertEquals(1000, ContentRangeHeader.total("bytes */1000"));
        assertEquals(1000, ContentRangeHeader.total("Bytes 0-99/1000"));
        assertEquals(0, ContentRangeHeader.total("bytes */0"));
        assertEquals(999_999_999_999_999_999L, ContentRangeHeader.total("bytes 0-0/999999999999999999"));
    }

    @Test
    void totalIsMinusOneWhenMissingUnknownOrMalformed()
    {
        assertEquals(-1, ContentRangeHeader.total(null));
        assertEquals(-1, ContentRangeHeader.total(""));
        assertEquals(-1, ContentRangeHeader.total("bytes 0-99/*"));
        assertEquals(-1, ContentRangeHeader.total("bytes 0-99"));
        assertEquals(-1, ContentRangeHeader.total("items 0-99/1000"));
        assertEquals(-1, ContentRangeHeader.total("bytes 0-99/10x0"));
        assertEquals(-1, ContentRangeHeader.total("bytes 0-99/"));
        assertEquals(-1, ContentRangeHeader.total("bytes 0-99/-1"));
        assertEquals(-1, ContentRangeHeader.total("bytes 0-0/1000000000000000000"), "19 digits could overflow");
    }

    @Test
    void decimalReadsOnlyTheGivenSpanOfDigits()
    {
        assertEquals(42, ContentRangeHeader.decimal("x42y", 1, 3));
        assertEquals(0, ContentRangeHeader.decimal("0", 0, 1));
        assertEquals(-1, ContentRangeHeader.decimal("42", 1, 1), "empty");
        assertEquals(-1, ContentRangeHeader.decimal("4 2", 0, 3));
        assertEquals(-1, ContentRangeHeader.decimal("+42", 0, 3));
    }

    @Test
    void parseLengthIsANonNegativeDecimalOrMinusOne()
    {
        assertEquals(4096, ContentRangeHeader.parseLength("4096"));
        assertEquals(0, ContentRangeHeader.parseLength("0"));
        assertEquals(-1, ContentRangeHeader.parseLength(null));
        assertEquals(-1, ContentRangeHeader.parseLength(""));
        assertEquals(-1, ContentRangeHeader.parseLength("-5"));
        assertEquals(-1, ContentRangeHeader.parseLength(" 5"));
    }

    @Test
    void rangeLengthAcceptsTheRangeAskedForOrOneCutShortByTheObjectsEnd()
    {
        assertEquals(100, ContentRangeHeader.rangeLength("bytes 0-99/1000", 0, 100));
        assertEquals(100, ContentRangeHeader.rangeLength("bytes 900-999/1000", 900, 100), "up to the last byte");
        assertEquals(50, ContentRangeHeader.rangeLength("bytes 950-999/1000", 950, 100), "cut at the end");
        assertEquals(100, ContentRangeHeader.rangeLength("bytes 0-99/*", 0, 100), "total unknown, range whole");
    }

    @Test
    void rangeLengthRefusesARangeThatDisagreesWithTheRequest()
    {
        assertEquals(-1, ContentRangeHeader.rangeLength(null, 0, 100));
        assertEquals(-1, ContentRangeHeader.rangeLength("Bytes 0-99/1000", 0, 100), "the L2 server writes lower case");
        assertEquals(-1, ContentRangeHeader.rangeLength("bytes 1-99/1000", 0, 100), "another start");
        assertEquals(-1, ContentRangeHeader.rangeLength("bytes 0-100/1000", 0, 100), "past the range");
        assertEquals(-1, ContentRangeHeader.rangeLength("bytes 0-49/1000", 0, 100), "short before the end");
        assertEquals(-1, ContentRangeHeader.rangeLength("bytes 0-49/*", 0, 100), "short with no total");
        assertEquals(-1, ContentRangeHeader.rangeLength("bytes 10-9/1000", 10, 100), "end before start");
        assertEquals(-1, ContentRangeHeader.rangeLength("bytes 0-99/99", 0, 100), "end past the total");
        assertEquals(-1, ContentRangeHeader.rangeLength("bytes 0-99/x", 0, 100));
        assertEquals(-1, ContentRangeHeader.rangeLength("bytes 0-99", 0, 100));
        assertEquals(-1, ContentRangeHeader.rangeLength("bytes 099/1000", 0, 100));
        assertEquals(-1, ContentRangeHeader.rangeLength("bytes */1000", 0, 100));
    }

    @Test
    void expectedLengthAlsoNeedsAContentLengthEqualToTheRange()
    {
        assertEquals(100, ContentRangeHeader.expectedLength("bytes 0-99/1000", "100", 0, 100));
        assertEquals(50, ContentRangeHeader.expectedLength("bytes 950-999/1000", "50", 950, 100));
        assertEquals(-1, ContentRangeHeader.expectedLength("bytes 0-99/1000", null, 0, 100));
        assertEquals(-1, ContentRangeHeader.expectedLength("bytes 0-99/1000", "99", 0, 100));
        assertEquals(-1, ContentRangeHeader.expectedLength("bytes 0-99/1000", "abc", 0, 100));
        assertEquals(-1, ContentRangeHeader.expectedLength("bytes 1-99/1000", "99", 0, 100));
    }
}
