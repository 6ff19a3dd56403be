package dev.offcache.server.s3;

import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;

/**
 * Verifies AWS Signature Version 2 on S3 requests, as S3, S3Proxy, MinIO and Ceph accept it (and boto3 still makes
 * for presigned URLs without a {@code signature_version}): the {@code Authorization: AWS ID:SIGNATURE} header and the
 * presigned query ({@code AWSAccessKeyId}, {@code Signature}, {@code Expires}). The signature is the Base64
 * HMAC-SHA1 of S3's string to sign (method, {@code Content-MD5}, {@code Content-Type}, the date or the expiry, the
 * {@code x-amz-*} headers, the resource with its sub-resources), compared in constant time; a header-signed request
 * must be within 15 minutes of the server's clock ({@code RequestTimeTooSkewed}), a presigned URL must not have
 * expired ({@code AccessDenied}). The body is not signed in V2 ({@code Content-MD5} is checked by the service).
 *
 * <p>One instance per connection (it keeps a {@link Mac}); not thread-safe.
 */
final class SigV2Verifier
{
    /** The query parameters that are part of the signed resource (S3's sub-resources and response overrides). */
    private static final Set<String> SUBRESOURCES = Set.of("acl", "cors", "delete", "lifecycle", "location",
        "logging", "notification", "partNumber", "policy", "requestPayment", "restore", "tagging", "torrent",
        "uploadId", "uploads", "versionId", "versioning", "versions", "website", "object-lock", "replication",
        "response-content-type", "response-content-language", "response-expires", "response-cache-control",
        "response-content-disposition", "response-content-encoding");

    private final S3Credentials credentials;
    private final Clock clock;
    private final Mac mac;

    SigV2Verifier(final S3Credentials credentials, final Clock clock)
    {
        this.credentials = credentials;
        this.clock = clock;
        try
        {
            this.mac = Mac.getInstance("HmacSHA1");
        }
        catch (final NoSuchAlgorithmException ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    /**
     * Whether a request carries a Signature Version 2 (header or query).
     *
     * @param authorization the {@code Authorization} header, or {@code null}.
     * @param query         the decoded query.
     * @return true for V2.
     */
    static boolean isV2(final String authorization, final List<AwsUriEncoding.QueryParameter> query)
    {
        return null != authorization ? authorization.startsWith("AWS ") :
            null != S3Request.parameter(query, "AWSAccessKeyId") || null != S3Request.parameter(query, "Signature");
    }

    /**
     * Verifies a V2 request.
     *
     * @param method   the HTTP method.
     * @param resource the path the signature covers: the path as sent, with {@code /BUCKET} before it for a
     *                 virtual-host request.
     * @param query    the decoded query.
     * @param headers  the headers.
     * @return who signed it (an unsigned payload, as far as the body goes).
     * @throws S3Exception with S3's code otherwise.
     */
    Authentication verify(
        final String method, final String resource, final List<AwsUriEncoding.QueryParameter> query,
        final HttpHeaders headers)
    {
        final String authorization = headers.get(HttpHeaderNames.AUTHORIZATION);
        final String accessKeyId;
        final String signature;
        final String dateLine;
        final long now = clock.millis();
        if (null != authorization)
        {
            final int colon = authorization.lastIndexOf(':');
            if (colon <= 4)
            {
                throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT, "AWS authorization header is invalid.  " +
                    "Expected AwsAccessKeyId:signature");
            }
            accessKeyId = authorization.substring(4, colon).trim();
            signature = authorization.substring(colon + 1).trim();
            final String amzDate = headers.get("x-amz-date");
            final String date = headers.get(HttpHeaderNames.DATE);
            final long time = null != amzDate ? AmzDates.parseHttpDate(amzDate) : AmzDates.parseHttpDate(date);
            if (time < 0)
            {
                throw new S3Exception(S3ErrorCode.ACCESS_DENIED,
                    "AWS authentication requires a valid Date or x-amz-date header");
            }
            if (Math.abs(now - time) > SigV4Verifier.MAX_SKEW_MILLIS)
            {
                throw new S3Exception(S3ErrorCode.REQUEST_TIME_TOO_SKEWED)
                    .with("RequestTime", null != amzDate ? amzDate : date)
                    .with("ServerTime", AmzDates.formatXmlTime(now))
                    .with("MaxAllowedSkewMilliseconds", Long.toString(SigV4Verifier.MAX_SKEW_MILLIS));
            }
            // with x-amz-date the Date line is empty (the time is signed among the x-amz-* headers)
            dateLine = null != amzDate || null == date ? "" : date.trim();
        }
        else
        {
            accessKeyId = S3Request.parameter(query, "AWSAccessKeyId");
            signature = S3Request.parameter(query, "Signature");
            final String expires = S3Request.parameter(query, "Expires");
            if (null == accessKeyId || null == signature || null == expires)
            {
                throw new S3Exception(S3ErrorCode.ACCESS_DENIED, "Query-string authentication requires the " +
                    "Signature, Expires and AWSAccessKeyId parameters");
            }
            final long expiresSeconds;
            try
            {
                expiresSeconds = Long.parseLong(expires);
            }
            catch (final NumberFormatException ex)
            {
                throw new S3Exception(S3ErrorCode.ACCESS_DENIED, "Invalid date (should be seconds since epoch): " +
                    expires);
            }
            if (now / 1000 > expiresSeconds)
            {
                throw new S3Exception(S3ErrorCode.ACCESS_DENIED, "Request has expired")
                    .with("Expires", AmzDates.formatXmlTime(expiresSeconds * 1000))
                    .with("ServerTime", AmzDates.formatXmlTime(now));
            }
            dateLine = expires;
        }
        final String secret = credentials.secretOf(accessKeyId);
        if (null == secret)
        {
            throw new S3Exception(S3ErrorCode.INVALID_ACCESS_KEY_ID).with("AWSAccessKeyId", accessKeyId);
        }
        final String stringToSign = stringToSign(method, resource, query, headers, dateLine);
        final byte[] presented = signature.getBytes(StandardCharsets.UTF_8);
        final int slash = resource.indexOf('/', 1);
        // a bucket's own resource is signed as /BUCKET/ (S3's examples) or /BUCKET (as sent path-style): either
        final String otherForm = slash < 0 ? resource + "/" : slash == resource.length() - 1 ?
            resource.substring(0, slash) : null;
        if (!matches(secret, stringToSign, presented) && (null == otherForm ||
            !matches(secret, stringToSign(method, otherForm, query, headers, dateLine), presented)))
        {
            // the string to sign helps a client find its mistake; the signatures themselves are never echoed
            throw new S3Exception(S3ErrorCode.SIGNATURE_DOES_NOT_MATCH).with("AWSAccessKeyId", accessKeyId)
                .with("StringToSign", stringToSign);
        }
        return new Authentication(accessKeyId, SignatureV4.UNSIGNED_PAYLOAD, null, null, null, null);
    }

    private boolean matches(final String secret, final String stringToSign, final byte[] presented)
    {
        try
        {
            mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA1"));
            return MessageDigest.isEqual(
                Base64.getEncoder().encode(mac.doFinal(stringToSign.getBytes(StandardCharsets.UTF_8))), presented);
        }
        catch (final InvalidKeyException ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    /** S3's Signature Version 2 string to sign. */
    static String stringToSign(
        final String method, final String resource, final List<AwsUriEncoding.QueryParameter> query,
        final HttpHeaders headers, final String dateLine)
    {
        final StringBuilder out = new StringBuilder(256).append(method).append('\n')
            .append(trimmed(headers.get("Content-MD5"))).append('\n')
            .append(trimmed(headers.get(HttpHeaderNames.CONTENT_TYPE))).append('\n')
            .append(dateLine).append('\n');
        final Map<String, List<String>> amz = new TreeMap<>();
        for (final Map.Entry<String, String> header : headers)
        {
            final String name = header.getKey().toLowerCase(Locale.ROOT);
            if (name.startsWith("x-amz-"))
            {
                amz.computeIfAbsent(name, (n) -> new ArrayList<>()).add(header.getValue().trim());
            }
        }
        amz.forEach((name, values) -> out.append(name).append(':').append(String.join(",", values)).append('\n'));
        out.append(resource);
        final TreeMap<String, String> subresources = new TreeMap<>();
        for (final AwsUriEncoding.QueryParameter parameter : query)
        {
            if (SUBRESOURCES.contains(parameter.name()))
            {
                subresources.putIfAbsent(parameter.name(), parameter.value());
            }
        }
        char separator = '?';
        for (final Map.Entry<String, String> subresource : subresources.entrySet())
        {
            out.append(separator).append(subresource.getKey());
            if (null != subresource.getValue() && !subresource.getValue().isEmpty())
            {
                out.append('=').append(subresource.getValue());
            }
            separator = '&';
        }
        return out.toString();
    }

    private static String trimmed(final String value)
    {
        return null == value ? "" : value.trim();
    }
}
