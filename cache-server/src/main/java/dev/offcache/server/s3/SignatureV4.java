package dev.offcache.server.s3;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The arithmetic of AWS Signature Version 4 (see AWS's "Signature Calculations for the Authorization Header"): the
 * signing key derived from the secret through the credential scope, the string to sign over a canonical request,
 * and the signature. The parts a verifier parses and checks live in {@link SigV4Verifier}. Stateless and
 * thread-safe; each call makes its own {@link Mac}, so hot callers keep one of their own ({@link #newMac()}).
 */
public final class SignatureV4
{
    /** The only algorithm Signature Version 4 defines. */
    public static final String ALGORITHM = "AWS4-HMAC-SHA256";
    /** The last element of every credential scope. */
    public static final String TERMINATOR = "aws4_request";
    /** {@code x-amz-content-sha256} of a request whose body is not signed. */
    public static final String UNSIGNED_PAYLOAD = "UNSIGNED-PAYLOAD";
    /** {@code x-amz-content-sha256} of a body sent as signed {@code aws-chunked} chunks. */
    public static final String STREAMING_PAYLOAD = "STREAMING-AWS4-HMAC-SHA256-PAYLOAD";
    /** The SHA-256 of the empty string: the payload hash of a request without a body. */
    public static final String EMPTY_SHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private SignatureV4()
    {
    }

    /**
     * The signing key: {@code HMAC(HMAC(HMAC(HMAC("AWS4" + secret, date), region), service), "aws4_request")}.
     *
     * @param secret  the secret access key.
     * @param date    the scope's date, {@code yyyyMMdd}.
     * @param region  the scope's region.
     * @param service the scope's service ({@code s3}).
     * @return the 32-byte key.
     */
    public static byte[] signingKey(final String secret, final String date, final String region, final String service)
    {
        final Mac mac = newMac();
        byte[] key = ("AWS4" + secret).getBytes(StandardCharsets.UTF_8);
        key = hmac(mac, key, date);
        key = hmac(mac, key, region);
        key = hmac(mac, key, service);
        return hmac(mac, key, TERMINATOR);
    }

    /**
     * The string to sign over a canonical request.
     *
     * @param amzDate          the request's time, {@code yyyyMMdd'T'HHmmss'Z'}.
     * @param scope            the credential scope, {@code date/region/service/aws4_request}.
     * @param canonicalRequest the canonical request.
     * @return the string to sign.
     */
    public static String stringToSign(final String amzDate, final String scope, final String canonicalRequest)
    {
        return ALGORITHM + '\n' + amzDate + '\n' + scope + '\n' +
            hex(newSha256().digest(wireBytes(canonicalRequest)));
    }

    /**
     * The bytes a client hashed for a canonical request. The HTTP decoder hands header values over one char per
     * byte received (ISO-8859-1), so a header carrying UTF-8 must be hashed as those same bytes, not encoded again;
     * text that did not come off the wire (chars above 0xFF) is UTF-8.
     *
     * @param text the text.
     * @return its bytes.
     */
    public static byte[] wireBytes(final String text)
    {
        for (int i = 0; i < text.length(); i++)
        {
            if (text.charAt(i) > 0xFF)
            {
                return text.getBytes(StandardCharsets.UTF_8);
            }
        }
        return text.getBytes(StandardCharsets.ISO_8859_1);
    }

    /**
     * The signature of a string: lower-case hex of its HMAC under the signing key.
     *
     * @param mac          a Mac of this class ({@link #newMac()}); re-initialised here.
     * @param signingKey   the signing key.
     * @param stringToSign what to sign.
     * @return 64 hex digits.
     */
    public static String sign(final Mac mac, final byte[] signingKey, final String stringToSign)
    {
        return hex(hmac(mac, signingKey, stringToSign));
    }

    /**
     * Lower-case hex of the SHA-256 of a string's UTF-8 bytes.
     *
     * @param text the text.
     * @return 64 hex digits.
     */
    public static String sha256Hex(final String text)
    {
        return hex(newSha256().digest(text.getBytes(StandardCharsets.UTF_8)));
    }

    /**
     * A new HMAC-SHA256.
     *
     * @return the Mac.
     */
    public static Mac newMac()
    {
        try
        {
            return Mac.getInstance("HmacSHA256");
        }
        catch (final GeneralSecurityException ex)
        {
            throw new IllegalStateException("the JDK has no HmacSHA256", ex);
        }
    }

    /**
     * A new SHA-256 digest.
     *
     * @return the digest.
     */
    public static MessageDigest newSha256()
    {
        try
        {
            return MessageDigest.getInstance("SHA-256");
        }
        catch (final GeneralSecurityException ex)
        {
            throw new IllegalStateException("the JDK has no SHA-256", ex);
        }
    }

    /**
     * Lower-case hex.
     *
     * @param bytes the bytes.
     * @return two digits per byte.
     */
    public static String hex(final byte[] bytes)
    {
        final char[] out = new char[bytes.length * 2];
        for (int i = 0; i < bytes.length; i++)
        {
            out[2 * i] = HEX[(bytes[i] >>> 4) & 0xF];
            out[2 * i + 1] = HEX[bytes[i] & 0xF];
        }
        return new String(out);
    }

    static byte[] hmac(final Mac mac, final byte[] key, final String data)
    {
        try
        {
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
        }
        catch (final GeneralSecurityException ex)
        {
            throw new IllegalStateException("HmacSHA256 refused a key", ex);
        }
        return mac.doFinal(data.getBytes(StandardCharsets.UTF_8));
    }
}
