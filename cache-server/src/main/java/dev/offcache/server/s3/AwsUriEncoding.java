package dev.offcache.server.s3;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * URI encoding as Signature Version 4 defines it for S3: every byte percent-encoded (upper-case hex) except the
 * unreserved {@code A-Z a-z 0-9 - . _ ~}, and {@code /} kept in paths. S3 neither normalises nor double-encodes the
 * path, so a canonical path is the request path decoded once and encoded again; a canonical query is its parameters
 * decoded ({@code +} is a space, as S3 reads it), encoded again and sorted. Works on bytes, so any key the client
 * could sign is canonicalised exactly. Stateless and thread-safe.
 */
public final class AwsUriEncoding
{
    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    private AwsUriEncoding()
    {
    }

    /**
     * One query parameter, decoded.
     *
     * @param name  the name.
     * @param value the value, empty when the parameter had none ({@code ?acl}).
     */
    public record QueryParameter(String name, String value)
    {
    }

    /**
     * The canonical form of a raw (as received) request path.
     *
     * @param rawPath the path, percent-encoded as the client sent it, without the query.
     * @return the canonical path, {@code /} for an empty one.
     * @throws S3Exception ({@code InvalidArgument}) for a malformed escape.
     */
    public static String canonicalPath(final String rawPath)
    {
        if (rawPath.isEmpty())
        {
            return "/";
        }
        final StringBuilder out = new StringBuilder(rawPath.length() + 16);
        appendEncoded(out, decodeToBytes(rawPath, false), true);
        return out.toString();
    }

    /**
     * The canonical query string: every parameter (except {@code X-Amz-Signature} when {@code presigned}) decoded,
     * encoded again and sorted by name, then value; {@code name=} for a parameter without a value.
     *
     * @param parameters the decoded parameters.
     * @param presigned  whether to leave out {@code X-Amz-Signature}.
     * @return the canonical query string, empty when there are none.
     */
    public static String canonicalQuery(final List<QueryParameter> parameters, final boolean presigned)
    {
        if (parameters.isEmpty())
        {
            return "";
        }
        final List<String[]> encoded = new ArrayList<>(parameters.size());
        for (final QueryParameter parameter : parameters)
        {
            if (presigned && "X-Amz-Signature".equals(parameter.name()))
            {
                continue;
            }
            encoded.add(new String[] {encode(parameter.name(), false), encode(parameter.value(), false)});
        }
        encoded.sort((a, b) ->
        {
            final int byName = a[0].compareTo(b[0]);
            return byName != 0 ? byName : a[1].compareTo(b[1]);
        });
        final StringBuilder out = new StringBuilder(64);
        for (final String[] pair : encoded)
        {
            if (out.length() > 0)
            {
                out.append('&');
            }
            out.append(pair[0]).append('=').append(pair[1]);
        }
        return out.toString();
    }

    /**
     * Splits and decodes a raw query string ({@code a=1&b&c=x%20y}); {@code +} decodes to a space.
     *
     * @param rawQuery the query without the {@code ?}, or {@code null}.
     * @return the parameters in the order sent.
     * @throws S3Exception ({@code InvalidArgument}) for a malformed escape or invalid UTF-8.
     */
    public static List<QueryParameter> parseQuery(final String rawQuery)
    {
        final List<QueryParameter> parameters = new ArrayList<>();
        if (null == rawQuery || rawQuery.isEmpty())
        {
            return parameters;
        }
        int start = 0;
        while (start <= rawQuery.length())
        {
            int end = rawQuery.indexOf('&', start);
            if (end < 0)
            {
                end = rawQuery.length();
            }
            if (end > start)
            {
                final int equals = rawQuery.indexOf('=', start);
                if (equals < 0 || equals > end)
                {
                    parameters.add(new QueryParameter(decodeQueryPart(rawQuery.substring(start, end)), ""));
                }
                else
                {
                    parameters.add(new QueryParameter(decodeQueryPart(rawQuery.substring(start, equals)),
                        decodeQueryPart(rawQuery.substring(equals + 1, end))));
                }
            }
            start = end + 1;
        }
        return parameters;
    }

    /**
     * Encodes a string's UTF-8 bytes.
     *
     * @param value     the text.
     * @param keepSlash whether {@code /} stays as it is (paths) or becomes {@code %2F} (query values).
     * @return the encoded text.
     */
    public static String encode(final String value, final boolean keepSlash)
    {
        final StringBuilder out = new StringBuilder(value.length() + 8);
        appendEncoded(out, value.getBytes(StandardCharsets.UTF_8), keepSlash);
        return out.toString();
    }

    private static void appendEncoded(final StringBuilder out, final byte[] bytes, final boolean keepSlash)
    {
        for (final byte b : bytes)
        {
            final int c = b & 0xFF;
            if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                c == '-' || c == '.' || c == '_' || c == '~' || (keepSlash && c == '/'))
            {
                out.append((char) c);
            }
            else
            {
                out.append('%').append(HEX[c >>> 4]).append(HEX[c & 0xF]);
            }
        }
    }

    /**
     * Decodes a raw path ({@code +} stays a plus) to text.
     *
     * @param rawPath the path as received.
     * @return the decoded path.
     * @throws S3Exception ({@code InvalidArgument}) for a malformed escape or invalid UTF-8.
     */
    public static String decodePath(final String rawPath)
    {
        return needsDecoding(rawPath, false) ? utf8(decodeToBytes(rawPath, false), "the path") : rawPath;
    }

    private static String decodeQueryPart(final String raw)
    {
        return needsDecoding(raw, true) ? utf8(decodeToBytes(raw, true), "a query parameter") : raw;
    }

    private static boolean needsDecoding(final String raw, final boolean plusIsSpace)
    {
        for (int i = 0; i < raw.length(); i++)
        {
            final char c = raw.charAt(i);
            if (c == '%' || c >= 0x80 || (plusIsSpace && c == '+'))
            {
                return true;
            }
        }
        return false;
    }

    private static String utf8(final byte[] bytes, final String what)
    {
        try
        {
            return StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT)
                .decode(ByteBuffer.wrap(bytes))
                .toString();
        }
        catch (final CharacterCodingException ex)
        {
            throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT, what + " is not valid UTF-8");
        }
    }

    private static byte[] decodeToBytes(final String raw, final boolean plusIsSpace)
    {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream(raw.length());
        for (int i = 0; i < raw.length(); i++)
        {
            final char c = raw.charAt(i);
            if (c == '%')
            {
                final int high = i + 2 < raw.length() ? Character.digit(raw.charAt(i + 1), 16) : -1;
                final int low = i + 2 < raw.length() ? Character.digit(raw.charAt(i + 2), 16) : -1;
                if (high < 0 || low < 0)
                {
                    throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT, "malformed percent escape in the URI");
                }
                bytes.write(high << 4 | low);
                i += 2;
            }
            else if (plusIsSpace && c == '+')
            {
                bytes.write(' ');
            }
            else if (c < 0x100)
            {
                // what the HTTP decoder hands over: one char per byte received
                bytes.write(c);
            }
            else
            {
                final byte[] encoded = String.valueOf(c).getBytes(StandardCharsets.UTF_8);
                bytes.write(encoded, 0, encoded.length);
            }
        }
        return bytes.toByteArray();
    }
}
