package dev.offcache.server.log;

import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;

import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;

/**
 * The built-in TEXT log format's encoder: Logback's pattern encoder whose every line (message, arguments and stack
 * trace) passes through {@link Secrets#redact} before it is written, so no log line of the server, or of a library
 * it logs for, carries a signature, credential or key. A line without a secret is written as encoded.
 */
public final class RedactingTextEncoder extends PatternLayoutEncoder
{
    @Override
    public byte[] encode(final ILoggingEvent event)
    {
        final Charset charset = null == getCharset() ? StandardCharsets.UTF_8 : getCharset();
        return redact(super.encode(event), charset);
    }

    /**
     * An encoded line with its secrets redacted: the same array when it holds none.
     *
     * @param line    the encoded line.
     * @param charset its encoding.
     * @return the line to write.
     */
    static byte[] redact(final byte[] line, final Charset charset)
    {
        final String text = new String(line, charset);
        final String redacted = Secrets.redact(text);
        return redacted == text ? line : redacted.getBytes(charset);
    }
}
