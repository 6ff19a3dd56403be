package dev.offcache.server.log;

import java.nio.charset.StandardCharsets;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.LoggingEvent;
import ch.qos.logback.classic.util.LogbackMDCAdapter;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What {@link Secrets} takes out of text, and that the built-in formats' encoders apply it to every line, its
 * arguments and stack trace included: a line a library (or a future log call) writes with a signed URL or an
 * {@code Authorization} header in it is written without the secret.
 */
class SecretsTest
{
    private static final String SIGNATURE = "4ba5c0ffee0123456789abcdef0123456789abcdef0123456789abcdef012345";

    @Test
    void signingParametersAndAuthorizationsLoseTheirValuesAndKeepTheirNames()
    {
        assertEquals("/b/k?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=REDACTED&X-Amz-Date=20260101T000000Z" +
            "&X-Amz-Signature=REDACTED&x-amz-security-token=REDACTED", Secrets.redactTarget("/b/k?X-Amz-Algorithm=" +
            "AWS4-HMAC-SHA256&X-Amz-Credential=AKID%2F20260101%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=" +
            "20260101T000000Z&X-Amz-Signature=" + SIGNATURE + "&x-amz-security-token=tok%2Ben"));
        assertEquals("/b/k?AWSAccessKeyId=REDACTED&Expires=1&Signature=REDACTED",
            Secrets.redactTarget("/b/k?AWSAccessKeyId=AKID&Expires=1&Signature=abc%2Bdef%3D"));
        final String plain = "/obj/part-0.parquet";
        assertSame(plain, Secrets.redactTarget(plain), "no query: the same string");
        final String unsigned = "/b?list-type=2&prefix=signature/";
        assertSame(unsigned, Secrets.redactTarget(unsigned), "no signing parameter: the same string");

        assertEquals("Authorization: AWS4-HMAC-SHA256 Credential=REDACTED, SignedHeaders=host;x-amz-date, " +
            "Signature=REDACTED", Secrets.redact("Authorization: AWS4-HMAC-SHA256 Credential=AKID/20260101/" +
            "us-east-1/s3/aws4_request, SignedHeaders=host;x-amz-date, Signature=" + SIGNATURE));
        assertEquals("authorization=Bearer REDACTED", Secrets.redact("authorization=Bearer key-0123456789abcdef"));
        assertEquals("BEARER REDACTED and Basic REDACTED", Secrets.redact("BEARER k-1234567890abcdef and Basic " +
            "dXNlcjpwYXNz"));
        assertEquals("Authorization: AWS REDACTED", Secrets.redact("Authorization: AWS AKID:frJIUN8DYpKDtOLCwo//yllq" +
            "DzU="));
        assertEquals("X-Amz-Security-Token: REDACTED", Secrets.redact("X-Amz-Security-Token: FwoGZXIvYXdz"));
        final String harmless = "offcache-server listening (AWS Signature V4, auth enabled)";
        assertSame(harmless, Secrets.redact(harmless));
    }

    @Test
    void theBuiltInEncodersRedactEveryLineArgumentsAndStackTracesIncluded()
    {
        final LoggerContext context = new LoggerContext();
        context.setMDCAdapter(new LogbackMDCAdapter());
        final Logger logger = context.getLogger("some.library");
        final LoggingEvent event = new LoggingEvent(Logger.class.getName(), logger, Level.WARN,
            "request {} failed", new IllegalStateException("while sending Authorization: Bearer key-0123456789abc"),
            new Object[] {"GET /b/k?X-Amz-Signature=" + SIGNATURE});

        final RedactingTextEncoder text = new RedactingTextEncoder();
        text.setContext(context);
        text.setPattern("%level %logger - %msg%n");
        text.start();
        final String line = new String(text.encode(event), StandardCharsets.UTF_8);
        assertTrue(line.startsWith("WARN some.library - request GET /b/k?X-Amz-Signature=REDACTED failed"), line);
        assertTrue(line.contains("IllegalStateException: while sending Authorization: Bearer REDACTED"), line);
        assertFalse(line.contains(SIGNATURE) || line.contains("key-0123456789abc"), line);

        final RedactingJsonEncoder json = new RedactingJsonEncoder();
        json.setContext(context);
        json.start();
        final String object = new String(json.encode(event), StandardCharsets.UTF_8);
        assertTrue(object.contains("X-Amz-Signature=REDACTED") && object.contains("Bearer REDACTED"), object);
        assertFalse(object.contains(SIGNATURE) || object.contains("key-0123456789abc"), object);
    }
}
