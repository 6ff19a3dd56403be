package dev.offcache.server.s3;

/**
 * A request whose Signature Version 4 checked out: who signed it, and what a signed streaming body
 * ({@code aws-chunked}) needs to check its chunks against (the seed signature, the signing key and the scope).
 *
 * @param accessKeyId the signer's access key id, {@code null} when authentication is disabled.
 * @param payloadHash the signed {@code x-amz-content-sha256} ({@link SignatureV4#UNSIGNED_PAYLOAD} for presigned
 *                    URLs and unsigned requests).
 * @param amzDate     the request time, {@code yyyyMMdd'T'HHmmss'Z'}.
 * @param scope       the credential scope, {@code date/region/s3/aws4_request}.
 * @param signature   the request's signature (the seed of a chunk chain).
 * @param signingKey  the signing key (shared; never modify it).
 */
public record Authentication(
    String accessKeyId, String payloadHash, String amzDate, String scope, String signature, byte[] signingKey)
{
    /** What a request gets when authentication is disabled: nothing was checked. */
    public static final Authentication DISABLED =
        new Authentication(null, SignatureV4.UNSIGNED_PAYLOAD, null, null, null, null);

    /**
     * Whether the request was signed (not {@link #DISABLED}).
     *
     * @return true when a signature was verified.
     */
    public boolean signed()
    {
        return null != accessKeyId;
    }
}
