package dev.offcache.range.l2;

/**
 * Why a read (or size) went to the real origin instead of, or after part of, the L2 server's answer. The tag value
 * of {@code offcache_l2client_fallbacks_total{reason="..."}}.
 */
public enum FallbackReason
{
    /** The breaker was open (or a probe was out): L2 was not tried. */
    BREAKER_OPEN("breaker_open", false),
    /** The connection could not be made. */
    CONNECT("connect", true),
    /** No response headers within the abandon timeout. */
    NO_HEADERS("no_headers", true),
    /** The connection closed or failed before the response headers. */
    CLOSED_BEFORE_HEADERS("closed_before_headers", true),
    /** A status other than the expected 2xx. */
    STATUS("status", false),
    /** Missing or inconsistent Content-Length / Content-Range, or more body than announced. */
    MALFORMED("malformed", false),
    /** No body bytes for the stall timeout. */
    STALL("stall", true),
    /**
     * The read's overall deadline passed (the abandon and stall timeouts plus its length at the minimum read rate):
     * a server that keeps a call alive with a trickle of bytes, or of interim responses, is no answer either.
     */
    DEADLINE("deadline", true),
    /** A chunk's bytes did not match the CRC32C the server sent with them (damaged on the server or on the way). */
    CHECKSUM("checksum", false),
    /** The connection closed cleanly (or the body ended) before the announced length. */
    SHORT_BODY("short_body", false),
    /** The connection failed (reset, I/O error) in the middle of the body. */
    BROKEN_STREAM("broken_stream", false);

    private final String tag;
    private final boolean unresponsive;

    FallbackReason(final String tag, final boolean unresponsive)
    {
        this.tag = tag;
        this.unresponsive = unresponsive;
    }

    /**
     * The metric tag value.
     *
     * @return the tag.
     */
    public String tag()
    {
        return tag;
    }

    /**
     * Whether this failure means "the server did not answer" (counts towards opening the breaker).
     *
     * @return true for connect failures, missing headers, stalls and a passed deadline.
     */
    public boolean unresponsive()
    {
        return unresponsive;
    }
}
