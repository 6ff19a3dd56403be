package dev.offcache.transport.wire;

/**
 * Error codes: those sent by the server in {@link FrameType#ERROR} frames (1..99) and those the client raises
 * itself without a frame (100 and up). {@link #OK} (0) is what every non-error frame carries.
 */
public final class ErrorCode
{
    /** No error. */
    public static final int OK = 0;
    /** The id names no block or partition the server knows. */
    public static final int NOT_FOUND = 1;
    /** The partition existed but was deleted while, or before, being served. */
    public static final int DELETED = 2;
    /** The stored bytes do not match their CRC32C; nothing of the payload was sent. */
    public static final int CORRUPT = 3;
    /** The server has too many requests in flight; retry later. */
    public static final int OVERLOADED = 4;
    /** The requested range lies outside the block or partition, or the request frame was malformed. */
    public static final int BAD_REQUEST = 5;
    /** The server could not finish the response before the request's deadline (for example, back-pressure). */
    public static final int SERVER_TIMEOUT = 6;
    /** Any other server-side failure reading the source. */
    public static final int SERVER_ERROR = 7;

    /** Client side: no complete response before the fetch's deadline. */
    public static final int TIMEOUT = 100;
    /** Client side: the server's response stream went away (image unavailable, publication closed). */
    public static final int CONNECTION_LOST = 101;
    /** Client side: the payload is larger than the space left in the caller's destination buffer. */
    public static final int DESTINATION_TOO_SMALL = 102;
    /** Client side: the client was closed with the fetch still outstanding. */
    public static final int CLIENT_CLOSED = 103;
    /** Client side: too many fetches queued in the client. */
    public static final int CLIENT_OVERLOADED = 104;
    /** Client side: the server sent a frame that breaks the protocol (wrong position, unknown type). */
    public static final int PROTOCOL_ERROR = 105;
    /** Client side: the caller's {@code ChunkHandler} threw; the fetch was cancelled. */
    public static final int HANDLER_FAILED = 106;

    private ErrorCode()
    {
    }

    /**
     * A readable name for an error code.
     *
     * @param code the error code.
     * @return its name, or {@code UNKNOWN(n)}.
     */
    public static String name(final int code)
    {
        switch (code)
        {
            case OK:
                return "OK";
            case NOT_FOUND:
                return "NOT_FOUND";
            case DELETED:
                return "DELETED";
            case CORRUPT:
                return "CORRUPT";
            case OVERLOADED:
                return "OVERLOADED";
            case BAD_REQUEST:
                return "BAD_REQUEST";
            case SERVER_TIMEOUT:
                return "SERVER_TIMEOUT";
            case SERVER_ERROR:
                return "SERVER_ERROR";
            case TIMEOUT:
                return "TIMEOUT";
            case CONNECTION_LOST:
                return "CONNECTION_LOST";
            case DESTINATION_TOO_SMALL:
                return "DESTINATION_TOO_SMALL";
            case CLIENT_CLOSED:
                return "CLIENT_CLOSED";
            case CLIENT_OVERLOADED:
                return "CLIENT_OVERLOADED";
            case PROTOCOL_ERROR:
                return "PROTOCOL_ERROR";
            case HANDLER_FAILED:
                return "HANDLER_FAILED";
            default:
                return "UNKNOWN(" + code + ")";
        }
    }
}
