package dev.offcache.server.s3;

/**
 * The S3 error codes the endpoint answers with, each with the HTTP status and the message S3 itself gives, so S3
 * clients map them to the same exceptions they raise against S3 (a {@code NoSuchKeyException}, an
 * {@code AccessDeniedException}, a retry on {@code SlowDown}...).
 */
public enum S3ErrorCode
{
    /** The request is signed for another key or secret. */
    SIGNATURE_DOES_NOT_MATCH("SignatureDoesNotMatch", 403,
        "The request signature we calculated does not match the signature you provided. Check your key and " +
        "signing method."),
    /** The access key id is not configured. */
    INVALID_ACCESS_KEY_ID("InvalidAccessKeyId", 403,
        "The AWS Access Key Id you provided does not exist in our records."),
    /** Anonymous, expired, a write to a read-only endpoint, a key outside the allowed prefixes. */
    ACCESS_DENIED("AccessDenied", 403, "Access Denied"),
    /** The request's date is more than the allowed skew away from the server's clock. */
    REQUEST_TIME_TOO_SKEWED("RequestTimeTooSkewed", 403,
        "The difference between the request time and the current time is too large."),
    /** The Authorization header cannot be parsed or names another service or scope. */
    AUTHORIZATION_HEADER_MALFORMED("AuthorizationHeaderMalformed", 400, "The authorization header is malformed."),
    /** A presigned URL lacks or misstates one of its X-Amz-* parameters. */
    AUTHORIZATION_QUERY_PARAMETERS_ERROR("AuthorizationQueryParametersError", 400,
        "Error parsing the X-Amz-Credential parameter."),
    /** The body does not hash to the signed {@code x-amz-content-sha256}. */
    CONTENT_SHA256_MISMATCH("XAmzContentSHA256Mismatch", 400,
        "The provided 'x-amz-content-sha256' header does not match what was computed."),
    /** A parameter or header value is not acceptable. */
    INVALID_ARGUMENT("InvalidArgument", 400, "Invalid Argument"),
    /** A write's stored headers exceed what S3 keeps with an object. */
    METADATA_TOO_LARGE("MetadataTooLarge", 400, "Your metadata headers exceed the maximum allowed metadata size."),
    /** The request is not valid as a whole (for example, a signature version this endpoint does not take). */
    INVALID_REQUEST("InvalidRequest", 400, "Invalid Request"),
    /** An object key longer than the endpoint allows. */
    KEY_TOO_LONG("KeyTooLongError", 400, "Your key is too long."),
    /** A {@code Content-MD5} that is not the MD5 of the body. */
    BAD_DIGEST("BadDigest", 400, "The Content-MD5 you specified did not match what we received."),
    /** A {@code Content-MD5} that is not a Base64 MD5. */
    INVALID_DIGEST("InvalidDigest", 400, "The Content-MD5 you specified is not valid."),
    /** A {@code partNumber} the object does not have. */
    INVALID_PART_NUMBER("InvalidPartNumber", 416, "The requested partnumber is not satisfiable"),
    /** A body shorter than its declared length. */
    INCOMPLETE_BODY("IncompleteBody", 400, "You did not provide the number of bytes specified by the Content-Length " +
        "HTTP header."),
    /** A write without a {@code Content-Length} (a chunked transfer): S3 needs its length. */
    MISSING_CONTENT_LENGTH("MissingContentLength", 411, "You must provide the Content-Length HTTP header."),
    /** A CORS preflight ({@code OPTIONS}) without an {@code Origin}. */
    BAD_REQUEST("BadRequest", 400, "Insufficient information. Origin request header needed."),
    /** A CORS preflight: this endpoint has no CORS configuration. */
    ACCESS_FORBIDDEN("AccessForbidden", 403, "CORSResponse: CORS is not enabled for this bucket."),
    /** A body larger than the endpoint takes. */
    ENTITY_TOO_LARGE("EntityTooLarge", 400, "Your proposed upload exceeds the maximum allowed object size."),
    /** A request body that is not the XML document the operation takes. */
    MALFORMED_XML("MalformedXML", 400, "The XML you provided was not well-formed or did not validate against our " +
        "published schema."),
    /** A multipart upload id the origin does not know (completed, aborted, or never made). */
    NO_SUCH_UPLOAD("NoSuchUpload", 404, "The specified upload does not exist. The upload ID may be invalid, or the " +
        "upload may have been aborted or completed."),
    /** A completion names a part that was not uploaded or whose tag differs. */
    INVALID_PART("InvalidPart", 400, "One or more of the specified parts could not be found."),
    /** A completion lists its parts out of ascending order. */
    INVALID_PART_ORDER("InvalidPartOrder", 400, "The list of parts was not in ascending order."),
    /** A part other than the last is smaller than the origin's minimum (5 MiB on S3). */
    ENTITY_TOO_SMALL("EntityTooSmall", 400, "Your proposed upload is smaller than the minimum allowed object size."),
    /** The bucket is not one this endpoint serves. */
    NO_SUCH_BUCKET("NoSuchBucket", 404, "The specified bucket does not exist."),
    /** The object does not exist. */
    NO_SUCH_KEY("NoSuchKey", 404, "The specified key does not exist."),
    /** The HTTP method is not allowed on this resource. */
    METHOD_NOT_ALLOWED("MethodNotAllowed", 405, "The specified method is not allowed against this resource."),
    /** A precondition ({@code If-Match}, {@code If-Unmodified-Since}) does not hold. */
    PRECONDITION_FAILED("PreconditionFailed", 412, "At least one of the pre-conditions you specified did not hold."),
    /** The range starts past the object's end (or the object is empty). */
    INVALID_RANGE("InvalidRange", 416, "The requested range is not satisfiable"),
    /** An S3 operation or feature this endpoint does not provide. */
    NOT_IMPLEMENTED("NotImplemented", 501, "A header or query you provided implies functionality that is not " +
        "implemented."),
    /** The origin failed before the first byte. */
    INTERNAL_ERROR("InternalError", 500, "We encountered an internal error. Please try again."),
    /** The server is draining for shutdown. */
    SERVICE_UNAVAILABLE("ServiceUnavailable", 503, "Service is unable to handle request.");

    private final String code;
    private final int status;
    private final String message;

    S3ErrorCode(final String code, final int status, final String message)
    {
        this.code = code;
        this.status = status;
        this.message = message;
    }

    /**
     * The code as S3 spells it in the error document's Code element.
     *
     * @return the code.
     */
    public String code()
    {
        return code;
    }

    /**
     * The HTTP status S3 answers with.
     *
     * @return the status.
     */
    public int status()
    {
        return status;
    }

    /**
     * S3's message for the code.
     *
     * @return the message.
     */
    public String defaultMessage()
    {
        return message;
    }

    /**
     * The code of an S3 error code name, as an origin answered it.
     *
     * @param code the name ({@code NoSuchUpload}...).
     * @return the code, or {@code null} when this endpoint does not know it.
     */
    public static S3ErrorCode of(final String code)
    {
        for (final S3ErrorCode value : values())
        {
            if (value.code.equals(code))
            {
                return value;
            }
        }
        return null;
    }
}
