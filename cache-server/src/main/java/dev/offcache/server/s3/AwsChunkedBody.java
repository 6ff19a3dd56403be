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
 * {@code x-amz-decoded-content-length}. A whole body is decoded by {@link #decode}; a streamed one piece by piece
 * by a {@link Decoder} (which needs the trailing checksum's name up front, from {@code x-amz-trailer}). Used by
 * pass-through writes only. Not thread-safe (one per connection).
 */
public final class AwsChunkedBody
{
    private static final String SIGNED = SignatureV4.STREAMING_PAYLOAD;
    private static final String SIGNED_TRAILER = "STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER";
    private static final String UNSIGNED_TRAILER = "STREAMING-UNSIGNED-PAYLOAD-TRAILER";
    private static final int MAX_LINE = 4096;

    private final Mac mac = SignatureV4.newMac();
    private final MessageDigest sha256 = SignatureV4.newSha256();

    /** Where a decoder puts the decoded bytes. */
    @FunctionalInterface
    public interface Sink
    {
        /**
         * Takes decoded bytes (read, not consumed or retained).
         *
         * @param from   the buffer.
         * @param index  where they start.
         * @param length how many.
         */
        void write(ByteBuf from, int index, int length);
    }

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
     * Decodes and checks a whole body.
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
        if (decodedLength < 0 || decodedLength > encoded.readableBytes())
        {
            throw invalid("x-amz-decoded-content-length " + decodedLength + " does not fit the body");
        }
        final byte[] out = new byte[(int) decodedLength];
        final int[] written = {0};
        final Decoder decoder = new Decoder(auth, decodedLength, null, (from, index, length) ->
        {
            from.getBytes(index, out, written[0], length);
            written[0] += length;
        });
        decoder.whole = out;
        decoder.feed(encoded);
        decoder.finish();
        return out;
    }

    /**
     * A decoder of one streamed body, fed the encoded bytes as they arrive.
     *
     * @param auth          the request's verified signature.
     * @param decodedLength {@code x-amz-decoded-content-length}.
     * @param trailer       the request's {@code x-amz-trailer} (the trailing checksum's name), or {@code null}.
     * @param sink          takes the decoded bytes.
     * @return the decoder.
     */
    public Decoder decoder(final Authentication auth, final long decodedLength, final String trailer, final Sink sink)
    {
        if (decodedLength < 0)
        {
            throw invalid("x-amz-decoded-content-length is missing or negative");
        }
        return new Decoder(auth, decodedLength, trailer, sink);
    }

    /**
     * Decodes one body piece by piece: chunk headers, data (handed to the sink as it arrives, each chunk's
     * signature checked once the chunk is complete), the trailer. Not thread-safe.
     */
    public final class Decoder
    {
        private final Authentication auth;
        private final String form;
        private final boolean signed;
        private final long decodedLength;
        private final Sink sink;
        private final String declaredTrailer;
        private final Checksum declaredCrc;
        private final MessageDigest declaredDigest;
        private final StringBuilder line = new StringBuilder(128);
        private final StringBuilder signedLines = new StringBuilder(64);
        private byte[] whole;
        private State state = State.HEADER;
        private long written;
        private int remaining;
        private int crlfSeen;
        private String presented;
        private String previous;
        private String trailerSignature;

        private Decoder(final Authentication auth, final long decodedLength, final String trailer, final Sink sink)
        {
            this.auth = auth;
            this.form = auth.payloadHash();
            if (!isStreaming(form))
            {
                throw new IllegalArgumentException("not a streaming payload: " + form);
            }
            this.signed = !UNSIGNED_TRAILER.equals(form);
            this.decodedLength = decodedLength;
            this.sink = sink;
            this.previous = auth.signature();
            this.declaredTrailer = null == trailer || SIGNED.equals(form) ? null :
                trailer.trim().toLowerCase(Locale.ROOT);
            this.declaredCrc = null == declaredTrailer ? null : switch (declaredTrailer)
            {
                case "x-amz-checksum-crc32" -> new CRC32();
                case "x-amz-checksum-crc32c" -> new CRC32C();
                default -> null;
            };
            this.declaredDigest = null == declaredTrailer ? null : switch (declaredTrailer)
            {
                case "x-amz-checksum-sha1" -> newDigest("SHA-1");
                case "x-amz-checksum-sha256" -> newDigest("SHA-256");
                default -> null;
            };
            if (null != declaredTrailer && null == declaredCrc && null == declaredDigest)
            {
                throw new S3Exception(S3ErrorCode.NOT_IMPLEMENTED, "trailer " + declaredTrailer + " is not supported");
            }
        }

        /**
         * Decodes the next encoded bytes.
         *
         * @param in the bytes (read, not consumed).
         * @throws S3Exception when they are not what was signed or not {@code aws-chunked}.
         */
        public void feed(final ByteBuf in)
        {
            int at = in.readerIndex();
            final int end = in.writerIndex();
            while (at < end)
            {
                switch (state)
                {
                    case HEADER, TRAILER ->
                    {
                        final byte b = in.getByte(at++);
                        if (lineEnded(b))
                        {
                            final String text = line.toString();
                            line.setLength(0);
                            if (state == State.HEADER)
                            {
                                onHeader(text);
                            }
                            else
                            {
                                onTrailerLine(text);
                            }
                        }
                    }
                    case DATA ->
                    {
                        final int n = Math.min(remaining, end - at);
                        if (signed)
                        {
                            sha256.update(in.nioBuffer(at, n));
                        }
                        if (null != declaredCrc)
                        {
                            declaredCrc.update(in.nioBuffer(at, n));
                        }
                        else if (null != declaredDigest)
                        {
                            declaredDigest.update(in.nioBuffer(at, n));
                        }
                        sink.write(in, at, n);
                        at += n;
                        remaining -= n;
                        written += n;
                        if (remaining == 0)
                        {
                            if (signed)
                            {
                                checkChunk();
                            }
                            state = State.DATA_END;
                            crlfSeen = 0;
                        }
                    }
                    case DATA_END ->
                    {
                        final byte b = in.getByte(at++);
                        if (b != (crlfSeen == 0 ? '\r' : '\n'))
                        {
                            throw invalid("a chunk does not end with CRLF");
                        }
                        if (++crlfSeen == 2)
                        {
                            state = State.HEADER;
                        }
                    }
                    default -> at = end;
                }
            }
        }

        /**
         * Ends the body: it must have ended with its final chunk (and trailer), holding the decoded length.
         *
         * @throws S3Exception when it did not.
         */
        public void finish()
        {
            if (state != State.DONE)
            {
                throw invalid(state == State.TRAILER ? "the trailer has no end" :
                    "the body ends before its final chunk");
            }
            if (written != decodedLength)
            {
                throw invalid("the chunks hold " + written + " bytes, x-amz-decoded-content-length says " +
                    decodedLength);
            }
        }

        private boolean lineEnded(final byte b)
        {
            if (b == '\n' && line.length() > 0 && line.charAt(line.length() - 1) == '\r')
            {
                line.setLength(line.length() - 1);
                return true;
            }
            if (line.length() >= MAX_LINE)
            {
                throw invalid(state == State.HEADER ? "a chunk header has no end" : "the trailer has no end");
            }
            line.append((char) (b & 0xFF));
            return false;
        }

        private void onHeader(final String header)
        {
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
            if (size < 0 || written + size > decodedLength)
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
                presented = header.substring(semicolon + 1 + prefix.length());
                sha256.reset();
            }
            remaining = size;
            if (size > 0)
            {
                state = State.DATA;
                return;
            }
            if (signed)
            {
                checkChunk();
            }
            state = SIGNED.equals(form) ? State.DONE : State.TRAILER;
        }

        private void checkChunk()
        {
            final String stringToSign = "AWS4-HMAC-SHA256-PAYLOAD\n" + auth.amzDate() + '\n' + auth.scope() + '\n' +
                previous + '\n' + SignatureV4.EMPTY_SHA256 + '\n' + SignatureV4.hex(sha256.digest());
            previous = checkSignature(auth, stringToSign, presented, "chunk");
        }

        private void onTrailerLine(final String text)
        {
            if (text.isEmpty())
            {
                if (signed)
                {
                    if (null == trailerSignature)
                    {
                        throw new S3Exception(S3ErrorCode.SIGNATURE_DOES_NOT_MATCH,
                            "the trailer has no x-amz-trailer-signature");
                    }
                    final String stringToSign = "AWS4-HMAC-SHA256-TRAILER\n" + auth.amzDate() + '\n' + auth.scope() +
                        '\n' + previous + '\n' + SignatureV4.sha256Hex(signedLines.toString());
                    checkSignature(auth, stringToSign, trailerSignature, "trailer");
                }
                state = State.DONE;
                return;
            }
            final int colon = text.indexOf(':');
            if (colon < 0)
            {
                throw invalid("a trailer line is not NAME:VALUE");
            }
            final String name = text.substring(0, colon).trim().toLowerCase(Locale.ROOT);
            final String value = text.substring(colon + 1).trim();
            if ("x-amz-trailer-signature".equals(name))
            {
                trailerSignature = value;
                return;
            }
            signedLines.append(name).append(':').append(value).append('\n');
            checkChecksum(name, value);
        }

        private void checkChecksum(final String name, final String value)
        {
            final byte[] actual;
            if (name.equals(declaredTrailer))
            {
                actual = null != declaredCrc ? crcBytes(declaredCrc.getValue()) : declaredDigest.digest();
            }
            else if (null != whole)
            {
                actual = switch (name)
                {
                    case "x-amz-checksum-crc32" -> crc(new CRC32(), whole);
                    case "x-amz-checksum-crc32c" -> crc(new CRC32C(), whole);
                    case "x-amz-checksum-sha1" -> newDigest("SHA-1").digest(whole);
                    case "x-amz-checksum-sha256" -> newDigest("SHA-256").digest(whole);
                    default -> throw new S3Exception(S3ErrorCode.NOT_IMPLEMENTED,
                        "trailer " + name + " is not supported");
                };
            }
            else
            {
                throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT, "the trailer " + name + " is not the one " +
                    "x-amz-trailer declared").with("ArgumentName", name);
            }
            if (!Base64.getEncoder().encodeToString(actual).equals(value))
            {
                throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT, "The " + name + " you specified did not match " +
                    "the calculated checksum.").with("ArgumentName", name);
            }
        }
    }

    private enum State
    {
        HEADER, DATA, DATA_END, TRAILER, DONE
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

    private static byte[] crc(final Checksum checksum, final byte[] body)
    {
        checksum.update(body, 0, body.length);
        return crcBytes(checksum.getValue());
    }

    private static byte[] crcBytes(final long value)
    {
        return new byte[] {(byte) (value >>> 24), (byte) (value >>> 16), (byte) (value >>> 8), (byte) value};
    }

    private static MessageDigest newDigest(final String algorithm)
    {
        try
        {
            return MessageDigest.getInstance(algorithm);
        }
        catch (final NoSuchAlgorithmException ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    private static S3Exception invalid(final String message)
    {
        return new S3Exception(S3ErrorCode.INVALID_ARGUMENT, "aws-chunked body: " + message);
    }
}
