package dev.offcache.server.s3;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Locale;

/**
 * The date formats of the S3 protocol: Signature Version 4's {@code 20130524T000000Z} ({@code x-amz-date}), the
 * HTTP date of {@code Date}, {@code Last-Modified} and the conditional headers, and the ISO 8601 time of XML
 * bodies ({@code 2013-05-24T00:00:00.000Z}). Stateless and thread-safe.
 */
public final class AmzDates
{
    private static final DateTimeFormatter HTTP_DATE =
        DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.ROOT).withZone(ZoneOffset.UTC);
    private static final DateTimeFormatter XML_TIME =
        DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'", Locale.ROOT).withZone(ZoneOffset.UTC);
    private static final DateTimeFormatter AMZ_DATE =
        DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'", Locale.ROOT).withZone(ZoneOffset.UTC);

    private AmzDates()
    {
    }

    /**
     * Parses {@code yyyyMMdd'T'HHmmss'Z'}.
     *
     * @param text the text.
     * @return epoch milliseconds, or -1 when the text is not such a date.
     */
    public static long parseAmzDate(final String text)
    {
        if (null == text || text.length() != 16 || text.charAt(8) != 'T' || text.charAt(15) != 'Z')
        {
            return -1;
        }
        final int year = digits(text, 0, 4);
        final int month = digits(text, 4, 2);
        final int day = digits(text, 6, 2);
        final int hour = digits(text, 9, 2);
        final int minute = digits(text, 11, 2);
        final int second = digits(text, 13, 2);
        if ((year | month | day | hour | minute | second) < 0 || year < 1970 || month < 1 || month > 12 ||
            day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60)
        {
            return -1;
        }
        try
        {
            return ZonedDateTime.of(year, month, day, hour, minute, Math.min(second, 59), 0, ZoneOffset.UTC)
                .toInstant().toEpochMilli();
        }
        catch (final DateTimeException ex)
        {
            return -1;
        }
    }

    /**
     * Formats {@code yyyyMMdd'T'HHmmss'Z'}.
     *
     * @param epochMillis the time.
     * @return the text.
     */
    public static String formatAmzDate(final long epochMillis)
    {
        return AMZ_DATE.format(Instant.ofEpochMilli(epochMillis));
    }

    /**
     * Parses an HTTP date (RFC 1123, as {@code If-Modified-Since} and {@code Date} carry it).
     *
     * @param text the text.
     * @return epoch milliseconds, or -1 when the text is not an HTTP date.
     */
    public static long parseHttpDate(final String text)
    {
        if (null == text || text.length() > 64)
        {
            return -1;
        }
        try
        {
            return ZonedDateTime.parse(text.trim(), DateTimeFormatter.RFC_1123_DATE_TIME).toInstant().toEpochMilli();
        }
        catch (final DateTimeParseException ex)
        {
            return -1;
        }
    }

    /**
     * Formats an HTTP date ({@code Sun, 06 Nov 1994 08:49:37 GMT}).
     *
     * @param epochMillis the time.
     * @return the text.
     */
    public static String formatHttpDate(final long epochMillis)
    {
        return HTTP_DATE.format(Instant.ofEpochMilli(epochMillis));
    }

    /**
     * Formats the ISO 8601 time of S3's XML bodies ({@code 2013-05-24T00:00:00.000Z}).
     *
     * @param epochMillis the time.
     * @return the text.
     */
    public static String formatXmlTime(final long epochMillis)
    {
        return XML_TIME.format(Instant.ofEpochMilli(epochMillis));
    }

    private static int digits(final String text, final int from, final int count)
    {
        int value = 0;
        for (int i = from; i < from + count; i++)
        {
            final char c = text.charAt(i);
            if (c < '0' || c > '9')
            {
                return -1_000_000;
            }
            value = value * 10 + (c - '0');
        }
        return value;
    }
}
