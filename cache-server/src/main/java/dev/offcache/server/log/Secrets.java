package dev.offcache.server.log;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Takes credentials out of text before it is logged: the values of the query parameters and header fields that sign
 * or authenticate a request ({@code X-Amz-Signature}, {@code X-Amz-Credential}, {@code X-Amz-Security-Token},
 * SigV2's {@code Signature} and {@code AWSAccessKeyId}, a SigV4 {@code Authorization}'s {@code Credential} and
 * {@code Signature}) and the token of a {@code Bearer}, {@code Basic} or SigV2 {@code AWS} authorization. Each value
 * becomes {@value #REDACTED}; the names stay, so a line still says how a request was signed. Anyone who reads a log
 * must not be able to replay a presigned URL or reuse a key from it. Stateless and thread-safe.
 */
public final class Secrets
{
    /** What a secret value is replaced with. */
    public static final String REDACTED = "REDACTED";

    /** A signing parameter or field and its value, up to the next separator (query, header list, quote, space). */
    private static final Pattern NAMED = Pattern.compile(
        "(?i)\\b(X-Amz-Signature|X-Amz-Credential|X-Amz-Security-Token|Signature|Credential|AWSAccessKeyId)" +
        "(=|:[ \\t]*)[^&\\s\"'<>,;\\\\]+");
    /** An authorization scheme and its token: {@code Bearer KEY} (any case), {@code Basic B64}. */
    private static final Pattern TOKEN = Pattern.compile(
        "\\b((?i:Bearer)|Basic)[ \\t]+(?!" + REDACTED + "\\b)[A-Za-z0-9._~+/=-]+");
    /** SigV2's {@code Authorization: AWS ID:SIGNATURE}. */
    private static final Pattern AWS_V2 = Pattern.compile("\\b(AWS)[ \\t]+[A-Za-z0-9._-]+:[A-Za-z0-9+/=_-]+");
    private static final Pattern NAMED_HINT = Pattern.compile(
        "(?i)signature|credential|security-token|awsaccesskeyid|bearer|basic|aws[ \\t]");

    private Secrets()
    {
    }

    /**
     * A request target with the values of its signing query parameters redacted; the same instance when it has no
     * query (no allocation), or none to redact.
     *
     * @param target the request line's target, {@code /path?query}.
     * @return the target to log.
     */
    public static String redactTarget(final String target)
    {
        final int query = target.indexOf('?');
        if (query < 0)
        {
            return target;
        }
        final Matcher matcher = NAMED.matcher(target);
        return matcher.find(query) ? replaceNamed(target, query) : target;
    }

    /**
     * Any text (a log line, an exception's message) with every secret value redacted; the same instance when it
     * holds none.
     *
     * @param text the text.
     * @return the text to log.
     */
    public static String redact(final String text)
    {
        if (null == text || !NAMED_HINT.matcher(text).find())
        {
            return text;
        }
        final String named = replaceNamed(text, 0);
        final String tokens = TOKEN.matcher(named).replaceAll("$1 " + REDACTED);
        return AWS_V2.matcher(tokens).replaceAll("$1 " + REDACTED);
    }

    private static String replaceNamed(final String text, final int from)
    {
        final Matcher matcher = NAMED.matcher(text);
        final StringBuilder out = new StringBuilder(text.length());
        int last = 0;
        int at = from;
        while (matcher.find(at))
        {
            out.append(text, last, matcher.end(2)).append(REDACTED);
            last = matcher.end();
            at = last;
        }
        return last == 0 ? text : out.append(text, last, text.length()).toString();
    }
}
