package dev.offcache.transport.wire;

/**
 * Frame type codes carried in the {@link FrameHeader#type()} field of every offcache transport frame.
 * Plain {@code int} constants so the hot paths switch on them without boxing or enum lookups.
 */
public final class FrameType
{
    /** Client → server: announces the client's response channel and stream id. */
    public static final int HELLO = 1;
    /** Client → server: fetch a byte range of one block or partition. */
    public static final int FETCH = 2;
    /** Server → client: one chunk of a response payload. */
    public static final int CHUNK = 3;
    /** Server → client: the request failed; {@link FrameHeader#errorCode()} says why. */
    public static final int ERROR = 4;
    /** Client → server: the client abandoned a request (timeout or failure); stop sending it. */
    public static final int CANCEL = 5;
    /** Client → server: the client is closing; release everything held for it. */
    public static final int GOODBYE = 6;

    private FrameType()
    {
    }

    /**
     * A readable name for a type code, for logs and exception messages.
     *
     * @param type the frame type code.
     * @return its name, or {@code UNKNOWN(n)}.
     */
    public static String name(final int type)
    {
        switch (type)
        {
            case HELLO:
                return "HELLO";
            case FETCH:
                return "FETCH";
            case CHUNK:
                return "CHUNK";
            case ERROR:
                return "ERROR";
            case CANCEL:
                return "CANCEL";
            case GOODBYE:
                return "GOODBYE";
            default:
                return "UNKNOWN(" + type + ")";
        }
    }
}
