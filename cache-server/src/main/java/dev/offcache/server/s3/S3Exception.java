package dev.offcache.server.s3;

import java.util.ArrayList;
import java.util.List;

/**
 * A request the S3 endpoint answers with an S3 error document: the code, a message, and the extra elements S3 adds
 * for that code (the {@code StringToSign} of a signature mismatch, the {@code ServerTime} of a skewed clock...).
 * These are ordinary outcomes of bad requests, so no stack trace is recorded.
 */
public final class S3Exception extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    private final S3ErrorCode code;
    private final transient List<String[]> details = new ArrayList<>(2);

    /**
     * An error with S3's own message for the code.
     *
     * @param code the code.
     */
    public S3Exception(final S3ErrorCode code)
    {
        this(code, code.defaultMessage());
    }

    /**
     * An error with a message of its own.
     *
     * @param code    the code.
     * @param message the message (shown to the client).
     */
    public S3Exception(final S3ErrorCode code, final String message)
    {
        super(message, null, false, false);
        this.code = code;
    }

    /**
     * Adds an element to the error document, after the Message element.
     *
     * @param element the element name, for example {@code ServerTime}.
     * @param value   its text (escaped when rendered).
     * @return this.
     */
    public S3Exception with(final String element, final String value)
    {
        details.add(new String[] {element, null == value ? "" : value});
        return this;
    }

    /**
     * The code.
     *
     * @return the code.
     */
    public S3ErrorCode code()
    {
        return code;
    }

    /**
     * The extra elements, each {@code {name, value}}, in order.
     *
     * @return the elements (not a copy).
     */
    public List<String[]> details()
    {
        return details;
    }

    /**
     * The value of an extra element.
     *
     * @param element the name.
     * @return its value, or {@code null}.
     */
    public String detail(final String element)
    {
        for (final String[] detail : details)
        {
            if (detail[0].equals(element))
            {
                return detail[1];
            }
        }
        return null;
    }
}
