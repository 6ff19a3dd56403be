package dev.offcache.server.s3;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Clock;
import java.util.List;
import java.util.Locale;

import javax.crypto.Mac;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;

/**
 * Verifies AWS Signature Version 4 on S3 requests (and hands Version 2 to {@link SigV2Verifier}), in both forms: the
 * {@code Authorization} header and the presigned URL ({@code X-Amz-Algorithm}, {@code X-Amz-Credential}, ... in the
 * query). It rebuilds the canonical request exactly as S3 defines it (path decoded once and encoded again, sorted
 * query, the signed headers trimmed and with inner blanks collapsed, the payload hash), derives the signing key of the
 * credential scope (remembered per key, day and region by {@link S3Credentials}), and compares signatures in constant
 * time. It enforces the skew window of the request time (15 minutes, as S3), the expiry of presigned URLs (at most a
 * week), that {@code host} and every {@code x-amz-*} header are signed, and that a body hashes to its signed {@code
 * x-amz-content-sha256} ({@code UNSIGNED-PAYLOAD} and the empty-body hash are the usual values of reads).
 *
 * <p>Each failure is an {@link S3Exception} with S3's code for it. One instance per connection (it keeps a
 * {@link Mac} and a digest); not thread-safe.
 */
public final class SigV4Verifier
{
    /** The skew S3 allows between a request's time and its own clock. */
    public static final long MAX_SKEW_MILLIS = 15 * 60 * 1000L;
    /** The longest validity of a presigned URL. */
    public static final long MAX_EXPIRES_SECONDS = 7 * 24 * 3600L;
    private static final String SERVICE = "s3";

    private final S3Credentials credentials;
    private final Clock clock;
    private final SigV2Verifier v2;
    private final Mac mac = SignatureV4.newMac();
    private final MessageDigest sha256 = SignatureV4.newSha256();
    private final StringBuilder canonical = new StringBuilder(512);

    /**
     * A verifier.
     *
     * @param credentials the accepted pairs.
     * @param clock       the time requests are checked against.
     */
    public SigV4Verifier(final S3Credentials credentials, final Clock clock)
    {
        this.credentials = credentials;
        this.clock = clock;
        this.v2 = new SigV2Verifier(credentials, clock);
    }

    /**
     * Verifies a request.
     *
     * @param method  the HTTP method as sent.
     * @param rawPath the request path as sent (percent-encoded), without the query.
     * @param query   the decoded query parameters, in the order sent.
     * @param headers the request headers.
     * @param body    the request body (may be {@code null} or empty); read, never consumed.
     * @return who signed it.
     * @throws S3Exception with S3's code when the request is not signed right.
     */
    public Authentication verify(
        final String method,
        final String rawPath,
        final List<AwsUriEncoding.QueryParameter> query,
        final HttpHeaders headers,
        final ByteBuf body)
    {
        return verify(method, rawPath, query, headers, body, false, rawPath);
    }

    /**
     * Verifies a request signed with Signature Version 4 or, as S3 still accepts, Version 2 ({@link SigV2Verifier}),
     * whose signed resource is the bucket and the path: {@code resourceV2}, and whose body may be streamed: then a
     * body hash in {@code x-amz-content-sha256} is not checked here but by the stream once its last byte is in
     * ({@link UploadStream}).
     *
     * @param method     the HTTP method as sent.
     * @param rawPath    the request path as sent (percent-encoded), without the query.
     * @param query      the decoded query parameters, in the order sent.
     * @param headers    the request headers.
     * @param body       the request body held whole (may be {@code null} or empty); read, never consumed.
     * @param streamed   whether the body is streamed rather than {@code body}.
     * @param resourceV2 the resource a V2 signature covers: {@code rawPath}, after {@code /BUCKET} for a
     *                   virtual-host request.
     * @return who signed it.
     * @throws S3Exception with S3's code when the request is not signed right.
     */
    public Authentication verify(
        final String method,
        final String rawPath,
        final List<AwsUriEncoding.QueryParameter> query,
        final HttpHeaders headers,
        final ByteBuf body,
        final boolean streamed,
        final String resourceV2)
    {
        final String authorization = headers.get(HttpHeaderNames.AUTHORIZATION);
        if (SigV2Verifier.isV2(authorization, query) && null == parameter(query, "X-Amz-Algorithm"))
        {
            return v2.verify(method, resourceV2, query, headers);
        }
        final String algorithm = parameter(query, "X-Amz-Algorithm");
        if (null != authorization && null != algorithm)
        {
            throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT, "Only one auth mechanism allowed; only the " +
                "X-Amz-Algorithm query parameter or the Authorization header should be specified");
        }
        if (null != authorization)
        {
            final Authentication signed = verifyHeader(method, rawPath, query, headers, authorization);
            if (!streamed)
            {
                checkPayload(signed.payloadHash(), body);
            }
            return signed;
        }
        if (null != algorithm)
        {
            return verifyPresigned(method, rawPath, query, headers, algorithm);
        }
        throw new S3Exception(S3ErrorCode.ACCESS_DENIED,
            "Anonymous requests are not allowed: sign them with AWS Signature Version 4 (or 2)");
    }

    private Authentication verifyHeader(
        final String method,
        final String rawPath,
        final List<AwsUriEncoding.QueryParameter> query,
        final HttpHeaders headers,
        final String authorization)
    {
        if (!authorization.startsWith(SignatureV4.ALGORITHM + ' '))
        {
            throw malformed(S3ErrorCode.AUTHORIZATION_HEADER_MALFORMED, "the authorization header must start with " +
                SignatureV4.ALGORITHM);
        }
        String credential = null;
        String signedHeaders = null;
        String signature = null;
        for (final String component : authorization.substring(SignatureV4.ALGORITHM.length() + 1).split(","))
        {
            final String part = component.trim();
            final int equals = part.indexOf('=');
            final String name = equals < 0 ? part : part.substring(0, equals);
            final String value = equals < 0 ? "" : part.substring(equals + 1);
            switch (name)
            {
                case "Credential" -> credential = value;
                case "SignedHeaders" -> signedHeaders = value;
                case "Signature" -> signature = value;
                default -> throw malformed(S3ErrorCode.AUTHORIZATION_HEADER_MALFORMED,
                    "unexpected component '" + name + "' in the authorization header");
            }
        }
        if (null == credential || null == signedHeaders || null == signature)
        {
            throw malformed(S3ErrorCode.AUTHORIZATION_HEADER_MALFORMED,
                "the authorization header needs Credential, SignedHeaders and Signature");
        }
        final Scope scope = Scope.parse(credential, S3ErrorCode.AUTHORIZATION_HEADER_MALFORMED);
        final byte[] signingKey = signingKeyOf(scope);

        final String amzDateHeader = headers.get("x-amz-date");
        final long time;
        final String amzDate;
        if (null != amzDateHeader)
        {
            time = AmzDates.parseAmzDate(amzDateHeader);
            amzDate = amzDateHeader;
        }
        else
        {
            time = AmzDates.parseHttpDate(headers.get(HttpHeaderNames.DATE));
            amzDate = time < 0 ? null : AmzDates.formatAmzDate(time);
        }
        if (time < 0)
        {
            throw new S3Exception(S3ErrorCode.ACCESS_DENIED,
                "AWS authentication requires a valid Date or x-amz-date header");
        }
        checkScopeDate(scope, amzDate, S3ErrorCode.AUTHORIZATION_HEADER_MALFORMED);
        final long now = clock.millis();
        if (Math.abs(now - time) > MAX_SKEW_MILLIS)
        {
            throw new S3Exception(S3ErrorCode.REQUEST_TIME_TOO_SKEWED)
                .with("RequestTime", null != amzDateHeader ? amzDateHeader : headers.get(HttpHeaderNames.DATE))
                .with("ServerTime", AmzDates.formatXmlTime(now))
                .with("MaxAllowedSkewMilliseconds", Long.toString(MAX_SKEW_MILLIS));
        }
        final String payloadHash = headers.get("x-amz-content-sha256");
        if (null == payloadHash)
        {
            throw new S3Exception(S3ErrorCode.INVALID_REQUEST,
                "Missing required header for this request: x-amz-content-sha256");
        }
        if (!isPayloadHashForm(payloadHash))
        {
            throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT, "x-amz-content-sha256 must be UNSIGNED-PAYLOAD, " +
                "STREAMING-AWS4-HMAC-SHA256-PAYLOAD or the SHA-256 of the body in lower-case hex")
                .with("ArgumentName", "x-amz-content-sha256").with("ArgumentValue", payloadHash);
        }
        checkEverySpecialHeaderIsSigned(headers, signedHeaders);

        final String canonicalRequest = canonicalRequest(method, rawPath, query, false, headers, signedHeaders,
            payloadHash);
        final String stringToSign = SignatureV4.stringToSign(amzDate, scope.scope(), canonicalRequest);
        checkSignature(signingKey, stringToSign, signature, scope, canonicalRequest);
        return new Authentication(scope.accessKeyId(), payloadHash, amzDate, scope.scope(), signature, signingKey);
    }

    private Authentication verifyPresigned(
        final String method,
        final String rawPath,
        final List<AwsUriEncoding.QueryParameter> query,
        final HttpHeaders headers,
        final String algorithm)
    {
        final S3ErrorCode error = S3ErrorCode.AUTHORIZATION_QUERY_PARAMETERS_ERROR;
        if (!SignatureV4.ALGORITHM.equals(algorithm))
        {
            throw malformed(error, "X-Amz-Algorithm only supports \"" + SignatureV4.ALGORITHM + "\"");
        }
        final String credential = parameter(query, "X-Amz-Credential");
        final String amzDate = parameter(query, "X-Amz-Date");
        final String expiresText = parameter(query, "X-Amz-Expires");
        final String signedHeaders = parameter(query, "X-Amz-SignedHeaders");
        final String signature = parameter(query, "X-Amz-Signature");
        if (null == credential || null == amzDate || null == expiresText || null == signedHeaders ||
            null == signature)
        {
            throw malformed(error, "Query-string authentication version 4 requires the X-Amz-Algorithm, " +
                "X-Amz-Credential, X-Amz-Signature, X-Amz-Date, X-Amz-SignedHeaders, and X-Amz-Expires parameters.");
        }
        final Scope scope = Scope.parse(credential, error);
        final long time = AmzDates.parseAmzDate(amzDate);
        if (time < 0)
        {
            throw malformed(error, "X-Amz-Date must be in the ISO8601 Long Format \"yyyyMMdd'T'HHmmss'Z'\"");
        }
        final long expires;
        try
        {
            expires = expiresText.length() > 9 ? Long.MAX_VALUE : Long.parseLong(expiresText);
        }
        catch (final NumberFormatException ex)
        {
            throw malformed(error, "X-Amz-Expires should be a number");
        }
        if (expires < 0)
        {
            throw malformed(error, "X-Amz-Expires must be non-negative");
        }
        if (expires > MAX_EXPIRES_SECONDS)
        {
            throw malformed(error, "X-Amz-Expires must be less than a week (in seconds); that is, the given " +
                "X-Amz-Expires must be less than 604800 seconds");
        }
        checkScopeDate(scope, amzDate, error);
        final byte[] signingKey = signingKeyOf(scope);
        final long now = clock.millis();
        if (time - now > MAX_SKEW_MILLIS)
        {
            throw new S3Exception(S3ErrorCode.ACCESS_DENIED, "Request is not valid yet")
                .with("X-Amz-Date", amzDate).with("ServerTime", AmzDates.formatXmlTime(now));
        }
        if (now > time + expires * 1000)
        {
            throw new S3Exception(S3ErrorCode.ACCESS_DENIED, "Request has expired")
                .with("X-Amz-Expires", expiresText)
                .with("Expires", AmzDates.formatXmlTime(time + expires * 1000))
                .with("ServerTime", AmzDates.formatXmlTime(now));
        }
        final String hashParameter = parameter(query, "X-Amz-Content-Sha256");
        final String payloadHash = null != hashParameter ? hashParameter : SignatureV4.UNSIGNED_PAYLOAD;
        requireHostSigned(signedHeaders);
        final String canonicalRequest = canonicalRequest(method, rawPath, query, true, headers, signedHeaders,
            payloadHash);
        final String stringToSign = SignatureV4.stringToSign(amzDate, scope.scope(), canonicalRequest);
        checkSignature(signingKey, stringToSign, signature, scope, canonicalRequest);
        return new Authentication(scope.accessKeyId(), payloadHash, amzDate, scope.scope(), signature, signingKey);
    }

    /**
     * The canonical request of Signature Version 4.
     *
     * @param method        the method.
     * @param rawPath       the path as sent.
     * @param query         the decoded query.
     * @param presigned     whether {@code X-Amz-Signature} is left out of the query.
     * @param headers       the headers.
     * @param signedHeaders the {@code ;}-separated signed header names.
     * @param payloadHash   the payload hash line.
     * @return the canonical request.
     */
    String canonicalRequest(
        final String method,
        final String rawPath,
        final List<AwsUriEncoding.QueryParameter> query,
        final boolean presigned,
        final HttpHeaders headers,
        final String signedHeaders,
        final String payloadHash)
    {
        final StringBuilder out = canonical;
        out.setLength(0);
        out.append(method).append('\n')
            .append(AwsUriEncoding.canonicalPath(rawPath)).append('\n')
            .append(AwsUriEncoding.canonicalQuery(query, presigned)).append('\n');
        int start = 0;
        while (start < signedHeaders.length())
        {
            int end = signedHeaders.indexOf(';', start);
            if (end < 0)
            {
                end = signedHeaders.length();
            }
            final String name = signedHeaders.substring(start, end);
            out.append(name).append(':');
            final List<String> values = headers.getAll(name);
            for (int i = 0; i < values.size(); i++)
            {
                if (i > 0)
                {
                    out.append(',');
                }
                appendTrimmed(out, values.get(i));
            }
            out.append('\n');
            start = end + 1;
        }
        out.append('\n').append(signedHeaders).append('\n').append(payloadHash);
        return out.toString();
    }

    private byte[] signingKeyOf(final Scope scope)
    {
        final byte[] key = credentials.signingKey(scope.accessKeyId(), scope.date(), scope.region(), SERVICE);
        if (null == key)
        {
            throw new S3Exception(S3ErrorCode.INVALID_ACCESS_KEY_ID).with("AWSAccessKeyId", scope.accessKeyId());
        }
        return key;
    }

    private void checkSignature(
        final byte[] signingKey,
        final String stringToSign,
        final String presented,
        final Scope scope,
        final String canonicalRequest)
    {
        final String expected = SignatureV4.sign(mac, signingKey, stringToSign);
        if (!MessageDigest.isEqual(expected.getBytes(StandardCharsets.ISO_8859_1),
            presented.getBytes(StandardCharsets.ISO_8859_1)))
        {
            throw new S3Exception(S3ErrorCode.SIGNATURE_DOES_NOT_MATCH)
                .with("AWSAccessKeyId", scope.accessKeyId())
                .with("StringToSign", stringToSign)
                .with("SignatureProvided", presented)
                .with("CanonicalRequest", canonicalRequest);
        }
    }

    private void checkPayload(final String payloadHash, final ByteBuf body)
    {
        if (payloadHash.length() != 64 || payloadHash.startsWith("STREAMING-"))
        {
            return;
        }
        final String actual;
        if (null == body || !body.isReadable())
        {
            actual = SignatureV4.EMPTY_SHA256;
        }
        else
        {
            sha256.reset();
            sha256.update(body.nioBuffer());
            actual = SignatureV4.hex(sha256.digest());
        }
        if (!actual.equals(payloadHash))
        {
            throw new S3Exception(S3ErrorCode.CONTENT_SHA256_MISMATCH)
                .with("ClientComputedContentSHA256", payloadHash)
                .with("S3ComputedContentSHA256", actual);
        }
    }

    private static boolean isPayloadHashForm(final String value)
    {
        if (value.equals(SignatureV4.UNSIGNED_PAYLOAD) || value.startsWith("STREAMING-"))
        {
            return true;
        }
        if (value.length() != 64)
        {
            return false;
        }
        for (int i = 0; i < 64; i++)
        {
            final char c = value.charAt(i);
            if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
            {
                return false;
            }
        }
        return true;
    }

    /** {@code host} and every {@code x-amz-*} header of the request must be signed, as S3 requires. */
    private static void checkEverySpecialHeaderIsSigned(final HttpHeaders headers, final String signedHeaders)
    {
        requireHostSigned(signedHeaders);
        for (final String name : headers.names())
        {
            if (name.regionMatches(true, 0, "x-amz-", 0, 6) &&
                !isListed(signedHeaders, name.toLowerCase(Locale.ROOT)))
            {
                throw new S3Exception(S3ErrorCode.ACCESS_DENIED,
                    "There were headers present in the request which were not signed")
                    .with("HeadersNotSigned", name.toLowerCase(Locale.ROOT));
            }
        }
    }

    private static void requireHostSigned(final String signedHeaders)
    {
        if (!isListed(signedHeaders, "host"))
        {
            throw new S3Exception(S3ErrorCode.ACCESS_DENIED,
                "There were headers present in the request which were not signed").with("HeadersNotSigned", "host");
        }
    }

    private static boolean isListed(final String signedHeaders, final String name)
    {
        int start = 0;
        while (start <= signedHeaders.length())
        {
            int end = signedHeaders.indexOf(';', start);
            if (end < 0)
            {
                end = signedHeaders.length();
            }
            if (end - start == name.length() && signedHeaders.regionMatches(start, name, 0, name.length()))
            {
                return true;
            }
            start = end + 1;
        }
        return false;
    }

    private static void checkScopeDate(final Scope scope, final String amzDate, final S3ErrorCode error)
    {
        if (!amzDate.startsWith(scope.date()))
        {
            throw malformed(error, "Invalid credential date \"" + scope.date() + "\". This date is not the same as " +
                "the request date \"" + amzDate.substring(0, 8) + "\".");
        }
    }

    /** Trims a header value and collapses each run of blanks inside it into one space. */
    private static void appendTrimmed(final StringBuilder out, final String value)
    {
        int from = 0;
        int to = value.length();
        while (from < to && isBlank(value.charAt(from)))
        {
            from++;
        }
        while (to > from && isBlank(value.charAt(to - 1)))
        {
            to--;
        }
        boolean inBlank = false;
        for (int i = from; i < to; i++)
        {
            final char c = value.charAt(i);
            if (isBlank(c))
            {
                if (!inBlank)
                {
                    out.append(' ');
                }
                inBlank = true;
            }
            else
            {
                out.append(c);
                inBlank = false;
            }
        }
    }

    private static boolean isBlank(final char c)
    {
        return c == ' ' || c == '\t';
    }

    private static String parameter(final List<AwsUriEncoding.QueryParameter> query, final String name)
    {
        for (final AwsUriEncoding.QueryParameter parameter : query)
        {
            if (parameter.name().equals(name))
            {
                return parameter.value();
            }
        }
        return null;
    }

    private static S3Exception malformed(final S3ErrorCode code, final String message)
    {
        return new S3Exception(code, message);
    }

    /** A parsed {@code AKID/yyyyMMdd/region/s3/aws4_request}. */
    private record Scope(String accessKeyId, String date, String region, String scope)
    {
        static Scope parse(final String credential, final S3ErrorCode error)
        {
            final String[] parts = credential.split("/", -1);
            if (parts.length != 5 || parts[0].isEmpty() || parts[1].length() != 8 || parts[2].isEmpty() ||
                !parts[1].chars().allMatch(Character::isDigit))
            {
                throw malformed(error, "the Credential is mal-formed; expecting " +
                    "\"<YOUR-AKID>/YYYYMMDD/REGION/SERVICE/aws4_request\".");
            }
            if (!SERVICE.equals(parts[3]))
            {
                throw malformed(error, "the Credential has the incorrect service \"" + parts[3] +
                    "\"; this endpoint is \"s3\".");
            }
            if (!SignatureV4.TERMINATOR.equals(parts[4]))
            {
                throw malformed(error, "the Credential has an incorrect terminal \"" + parts[4] +
                    "\"; expecting \"aws4_request\".");
            }
            return new Scope(parts[0], parts[1], parts[2],
                parts[1] + '/' + parts[2] + '/' + SERVICE + '/' + SignatureV4.TERMINATOR);
        }
    }
}
