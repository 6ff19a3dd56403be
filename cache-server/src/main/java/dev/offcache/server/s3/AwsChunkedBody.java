package dev.offcache.server.s3;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.Locale;
import java.util.zip.CRC32;
import java.util.zip.CRC32C;
import java.util.zip.Checksum;

import javax.crypto.Mac;

import io.netty.buffer.ByteBuf;

/**
 * Decodes an {@code aws-chunked} request body (S3's streaming upload, {@code x-amz-content-sha256:
 * STREAMING-...}) and checks it: with {@code STREAMING-AWS4-HMAC-SHA256-PAYLOAD[-TRAILER]} every chunk's signature
 * chains from the request's seed signature ({@code AWS4-HMAC-SHA256-PAYLOAD}), and a trailer's signature
 * ({@code AWS4-HMAC-SHA256-TRAILER}) closes the chain; with {@code STREAMING-UNSIGNED-PAYLOAD-TRAILER} the chunks
 * are unsigned. A trailing checksum ({@code x-amz-checksum-crc32}, {@code -crc32c}, {@code -sha1},
 * {@code -sha256}) is checked against the decoded bytes. The decoded length must equal
 * {@code x-amz-decoded-content-length}. Used by pass-through writes only. Not thread-safe (one per connection).
 */
public final class AwsChunkedBody
{
    private static final String SIGNED = SignatureV4.STREAMING_PAYLOAD;
    private static final String SIGNED_TRAILER = "STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER";
    private static final String UNSIGNED_TRAILER = "STREAMING-UNSIGNED-PAYLOAD-TRAILER";

    private final Mac mac = SignatureV4.newMac();
    private final MessageDigest sha256 = SignatureV4.newSha256();

    /**
     * Whether a payload hash names an {@code aws-chunked} body this class decodes.
     *
     * @param payloadHash the request's {@code x-amz-content-sha256}.
     * @return true for the three streaming forms.
     */
    public static boolean isStreaming(final String payloadHash)
    {
        return SIGNED.equals(payloadHash) || SIGNED_TRAILER.equals(payloadHash) || UNSIGNED_TRAILER.equals(payloadHash);
    }

    /**
     * Decodes and checks a body.
     *
     * @param encoded       the body as received (read, not consumed).
     * @param auth          the request's verified signature (its payload hash says which form).
     * @param decodedLength {@code x-amz-decoded-content-length}.
     * @return the object's bytes.
     * @throws S3Exception ({@code SignatureDoesNotMatch}, {@code InvalidArgument}, {@code BadDigest} as
     *                     {@code InvalidArgument}) when the body is not what was signed.
     */
    public byte[] decode(final ByteBuf encoded, final Authentication auth, final long decodedLength)
    {
        final String form = auth.payloadHash();
        if (!isStreaming(form))
        {
            throw new IllegalArgumentException("not a streaming payload: " + form);
        }
        final boolean signed = !UNSIGNED_TRAILER.equals(form);
        if (decodedLength < 0 || decodedLength > encoded.readableBytes())
        {
            throw invalid("x-amz-decoded-content-length " + decodedLength + " does not fit the body");
        }
        final byte[] out = new byte[(int) decodedLength];
        int written = 0;
        int at = encoded.readerIndex();
        final int end = encoded.writerIndex();
        String previous = auth.signature();
        while (true)
        {
            final int lineEnd = indexOfCrlf(encoded, at, end);
            if (lineEnd < 0)
            {
                throw invalid("a chunk header has no end");
            }
            final String header = encoded.toString(at, lineEnd - at, StandardCharsets.ISO_8859_1);
            at = lineEnd + 2;
            final int semicolon = header.indexOf(';');
            final String sizeText = semicolon < 0 ? header : header.substring(0, semicolon);
            final int size;
            try
            {
                size = Integer.parseInt(sizeText.trim(), 16);
            }
            catch (final NumberFormatException ex)
            {
                throw invalid("a chunk size is not hexadecimal");
            }
            if (size < 0 || size > end - at || written + size > out.length)
            {
                throw invalid("a chunk is longer than the body or the decoded length");
            }
            if (signed)
            {
                final String prefix = "chunk-signature=";
                if (semicolon < 0 || !header.startsWith(prefix, semicolon + 1))
                {
                    throw new S3Exception(S3ErrorCode.SIGNATURE_DOES_NOT_MATCH, "a chunk has no chunk-signature");
                }
                final String presented = header.substring(semicolon + 1 + prefix.length());
                sha256.reset();
                sha256.update(encoded.nioBuffer(at, size));
                final String stringToSign = "AWS4-HMAC-SHA256-PAYLOAD\n" + auth.amzDate() + '\n' + auth.scope() + '\n' +
                    previous + '\n' + SignatureV4.EMPTY_SHA256 + '\n' + SignatureV4.hex(sha256.digest());
                previous = checkSignature(auth, stringToSign, presented, "chunk");
            }
            encoded.getBytes(at, out, written, size);
            written += size;
            at += size;
            if (size == 0)
            {
                break;
            }
            if (at + 2 > end || encoded.getByte(at) != '\r' || encoded.getByte(at + 1) != '\n')
            {
                throw invalid("a chunk does not end with CRLF");
            }
            at += 2;
        }
        if (written != out.length)
        {
            throw invalid("the chunks hold " + written + " bytes, x-amz-decoded-content-length says " + out.length);
        }
        if (!SIGNED.equals(form))
        {
            readTrailer(encoded, at, end, auth, previous, signed, out);
        }
        return out;
    }

    private void readTrailer(
        final ByteBuf encoded, final int from, final int end, final Authentication auth, final String previous,
        final boolean signed, final byte[] body)
    {
        final StringBuilder signedLines = new StringBuilder(64);
        String trailerSignature = null;
        int at = from;
        while (true)
        {
            final int lineEnd = indexOfCrlf(encoded, at, end);
            if (lineEnd < 0)
            {
                throw invalid("the trailer has no end");
            }
            final String line = encoded.toString(at, lineEnd - at, StandardCharsets.ISO_8859_1);
            at = lineEnd + 2;
            if (line.isEmpty())
            {
                break;
            }
            final int colon = line.indexOf(':');
            if (colon < 0)
            {
                throw invalid("a trailer line is not NAME:VALUE");
            }
            final String name = line.substring(0, colon).trim().toLowerCase(Locale.ROOT);
            final String value = line.substring(colon + 1).trim();
            if ("x-amz-trailer-signature".equals(name))
            {
                trailerSignature = value;
                continue;
            }
            signedLines.append(name).append(':').append(value).append('\n');
            checkChecksum(name, value, body);
        }
        if (signed)
        {
            if (null == trailerSignature)
            {
                throw new S3Exception(S3ErrorCode.SIGNATURE_DOES_NOT_MATCH,
                    "the trailer has no x-amz-trailer-signature");
            }
            final String stringToSign = "AWS4-HMAC-SHA256-TRAILER\n" + auth.amzDate() + '\n' + auth.scope() + '\n' +
                previous + '\n' + SignatureV4.sha256Hex(signedLines.toString());
            checkSignature(auth, stringToSign, trailerSignature, "trailer");
        }
    }

    private String checkSignature(
        final Authentication auth, final String stringToSign, final String presented, final String what)
    {
        final String expected = SignatureV4.sign(mac, auth.signingKey(), stringToSign);
        if (!MessageDigest.isEqual(expected.getBytes(StandardCharsets.ISO_8859_1),
            presented.getBytes(StandardCharsets.ISO_8859_1)))
        {
            throw new S3Exception(S3ErrorCode.SIGNATURE_DOES_NOT_MATCH,
                "The " + what + " signature we calculated does not match the one you provided.")
                .with("StringToSign", stringToSign).with("SignatureProvided", presented);
        }
        return expected;
    }

    private static void checkChecksum(final String name, final String value, final byte[] body)
    {
        final byte[] actual;
        switch (name)
        {
            case "x-amz-checksum-crc32" -> actual = crc(new CRC32(), body);
            case "x-amz-checksum-crc32c" -> actual = crc(new CRC32C(), body);
            case "x-amz-checksum-sha1" -> actual = digest("SHA-1", body);
            case "x-amz-checksum-sha256" -> actual = digest("SHA-256", body);
            default -> throw new S3Exception(S3ErrorCode.NOT_IMPLEMENTED, "trailer " + name + " is not supported");
        }
        if (!Base64.getEncoder().encodeToString(actual).equals(value))
        {
            throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT, "The " + name + " you specified did not match the " +
                "calculated checksum.").with("ArgumentName", name);
        }
    }

    private static byte[] crc(final Checksum checksum, final byte[] body)
    {
        checksum.update(body, 0, body.length);
        final long value = checksum.getValue();
        return new byte[] {(byte) (value >>> 24), (byte) (value >>> 16), (byte) (value >>> 8), (byte) value};
    }

    private static byte[] digest(final String algorithm, final byte[] body)
    {
        try
        {
            return MessageDigest.getInstance(algorithm).digest(body);
        }
        catch (final NoSuchAlgorithmException ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    private static int indexOfCrlf(final ByteBuf buffer, final int from, final int end)
    {
        for (int i = from; i + 1 < end; i++)
        {
            if (buffer.getByte(i) == '\r' && buffer.getByte(i + 1) == '\n')
            {
                return i;
            }
            if (i - from > 4096)
            {
                return -1;
            }
        }
        return -1;
    }

    private static S3Exception invalid(final String message)
    {
        return new S3Exception(S3ErrorCode.INVALID_ARGUMENT, "aws-chunked body: " + message);
    }
}
