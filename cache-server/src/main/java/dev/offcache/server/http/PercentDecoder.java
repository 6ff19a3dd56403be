package dev.offcache.server.http;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Decodes a URI path: {@code %XX} escapes as UTF-8, {@code +} kept as a plus (object keys may contain it).
 * Malformed escapes or invalid UTF-8 are refused.
 */
final class PercentDecoder
{
    private PercentDecoder()
    {
    }

    static String decode(final String path)
    {
        if (path.indexOf('%') < 0)
        {
            return path;
        }
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream(path.length());
        for (int i = 0; i < path.length(); i++)
        {
            final char c = path.charAt(i);
            if (c == '%')
            {
                if (i + 2 >= path.length())
                {
                    throw new IllegalArgumentException("truncated percent escape in path");
                }
                final int high = Character.digit(path.charAt(i + 1), 16);
                final int low = Character.digit(path.charAt(i + 2), 16);
                if (high < 0 || low < 0)
                {
                    throw new IllegalArgumentException("bad percent escape in path");
                }
                bytes.write(high << 4 | low);
                i += 2;
            }
            else
            {
                final byte[] encoded = String.valueOf(c).getBytes(StandardCharsets.UTF_8);
                bytes.write(encoded, 0, encoded.length);
            }
        }
        try
        {
            return StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT)
                .decode(ByteBuffer.wrap(bytes.toByteArray()))
                .toString();
        }
        catch (final CharacterCodingException ex)
        {
            throw new IllegalArgumentException("path is not valid UTF-8 after decoding");
        }
    }
}
