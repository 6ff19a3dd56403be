package dev.offcache.server.log;

import java.nio.charset.StandardCharsets;

import ch.qos.logback.classic.encoder.JsonEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;

/**
 * The built-in JSON log format's encoder: Logback's {@link JsonEncoder} whose every object (message, throwable)
 * passes through {@link Secrets#redact} before it is written, as {@link RedactingTextEncoder} does for text.
 */
public final class RedactingJsonEncoder extends JsonEncoder
{
    @Override
    public byte[] encode(final ILoggingEvent event)
    {
        return RedactingTextEncoder.redact(super.encode(event), StandardCharsets.UTF_8);
    }
}
