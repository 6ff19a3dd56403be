package dev.offcache.server.s3;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Clock;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

import dev.offcache.range.origin.FileSystemOrigin;
import dev.offcache.server.http.ObjectKeyPolicy;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The S3 endpoint's decisions over a real local-directory origin: what each object request, listing, bucket request
 * and write is answered with, and the S3 code of every error.
 */
class S3ServiceTest
{
    @TempDir
    Path root;

    private FileSystemOrigin origin;
    private final byte[] data = new byte[10_000];

    private S3Service service(final S3WriteMode writes, final List<String> prefixes)
    {
        return new S3Service(new S3Buckets(List.of(new S3Buckets.Bucket("lake", "eu-west-3",
            new OriginBackend(origin)))), new ObjectKeyPolicy(64, prefixes), writes, Clock.systemUTC());
    }

    @BeforeEach
    void open() throws Exception
    {
        for (int i = 0; i < data.length; i++)
        {
            data[i] = (byte) (i * 31);
        }
        Files.createDirectories(root.resolve("t/d"));
        Files.write(root.resolve("t/data.bin"), data);
        Files.write(root.resolve("t/empty"), new byte[0]);
        Files.writeString(root.resolve("t/d/x"), "x");
        Files.writeString(root.resolve("u"), "u");
        origin = new FileSystemOrigin(root, 2);
    }

    @AfterEach
    void close()
    {
        origin.close();
    }

    private static S3Answer answer(
        final S3Service service, final String method, final String uri, final HttpHeaders headers, final ByteBuf body)
        throws Exception
    {
        final S3Request request = new S3RequestParser(null).parse(method, uri, headers.set("Host", "h"));
        return service.answer(request, Authentication.DISABLED, headers, body, "req-1").get(20, TimeUnit.SECONDS);
    }

    private S3Answer get(final String uri, final String... headers) throws Exception
    {
        final HttpHeaders h = new DefaultHttpHeaders();
        for (int i = 0; i < headers.length; i += 2)
        {
            h.set(headers[i], headers[i + 1]);
        }
        return answer(service(S3WriteMode.REFUSE, List.of()), "GET", uri, h, Unpooled.EMPTY_BUFFER);
    }

    private static String code(final S3Answer answer)
    {
        assertInstanceOf(S3Answer.Complete.class, answer);
        final String body = ((S3Answer.Complete) answer).body();
        final int start = body.indexOf("<Code>");
        return start < 0 ? null : body.substring(start + 6, body.indexOf("</Code>"));
    }

    private static S3Answer.ObjectBody body(final S3Answer answer)
    {
        return assertInstanceOf(S3Answer.ObjectBody.class, answer, answer.toString());
    }

    @Test
    void rangesAreAnsweredAsS3AnswersThem() throws Exception
    {
        final S3Answer.ObjectBody whole = body(get("/lake/t/data.bin"));
        assertEquals(200, whole.status());
        assertEquals(0, whole.start());
        assertEquals(10_000, whole.length());
        assertEquals("10000", whole.headers().get("Content-Length"));
        assertEquals("bytes", whole.headers().get("Accept-Ranges"));
        assertEquals("binary/octet-stream", whole.headers().get("Content-Type"));
        final String etag = whole.headers().get("ETag");
        assertTrue(etag.startsWith("\"") && etag.contains("-"), etag);
        assertNotNull(whole.headers().get("Last-Modified"));

        final S3Answer.ObjectBody closed = body(get("/lake/t/data.bin", "Range", "bytes=100-199"));
        assertEquals(206, closed.status());
        assertEquals("bytes 100-199/10000", closed.headers().get("Content-Range"));
        assertEquals(100, closed.start());
        assertEquals(100, closed.length());
        final S3Answer.ObjectBody open = body(get("/lake/t/data.bin", "Range", "bytes=9990-"));
        assertEquals(9990, open.start());
        assertEquals(10, open.length());
        final S3Answer.ObjectBody suffix = body(get("/lake/t/data.bin", "Range", "bytes=-300"));
        assertEquals(9700, suffix.start());
        assertEquals("bytes 9700-9999/10000", suffix.headers().get("Content-Range"));
        final S3Answer.ObjectBody clamped = body(get("/lake/t/data.bin", "Range", "bytes=9000-20000"));
        assertEquals(1000, clamped.length());

        final S3Answer past = get("/lake/t/data.bin", "Range", "bytes=10000-10005");
        assertEquals(416, past.status());
        assertEquals("InvalidRange", code(past));
        assertEquals("bytes */10000", past.headers().get("Content-Range"));
        assertEquals("InvalidRange", code(get("/lake/t/empty", "Range", "bytes=0-")));
        assertEquals(200, body(get("/lake/t/empty")).status());

        for (final String ignored : List.of("bytes=5-2", "bytes=0-1,5-6", "items=0-1", "bytes=x-"))
        {
            final S3Answer.ObjectBody served = body(get("/lake/t/data.bin", "Range", ignored));
            assertEquals(200, served.status(), "S3 ignores the Range " + ignored);
            assertEquals(10_000, served.length());
        }
        final S3Answer.ObjectBody part = body(get("/lake/t/data.bin?partNumber=1"));
        assertEquals(206, part.status());
        // an object not uploaded in parts is its part 1, with no part count (S3's answer)
        assertEquals("bytes 0-9999/10000", part.headers().get("Content-Range"));
        assertEquals(null, part.headers().get("x-amz-mp-parts-count"));
        assertEquals("InvalidPartNumber", code(get("/lake/t/data.bin?partNumber=2")));
        assertEquals("InvalidRequest", code(get("/lake/t/data.bin?partNumber=1", "Range", "bytes=0-1")));
    }

    @Test
    void conditionsOverridesAndHeadFollowTheObjectsTag() throws Exception
    {
        final String etag = body(get("/lake/t/data.bin")).headers().get("ETag");
        final String modified = body(get("/lake/t/data.bin")).headers().get("Last-Modified");
        final S3Answer notModified = get("/lake/t/data.bin", "If-None-Match", etag);
        assertEquals(304, notModified.status());
        assertEquals(etag, notModified.headers().get("ETag"));
        assertEquals(304, get("/lake/t/data.bin", "If-Modified-Since", modified).status());
        final S3Answer failed = get("/lake/t/data.bin", "If-Match", "\"other\"");
        assertEquals(412, failed.status());
        assertEquals("PreconditionFailed", code(failed));
        assertTrue(((S3Answer.Complete) failed).body().contains("<Condition>If-Match</Condition>"));
        assertEquals(206, get("/lake/t/data.bin", "If-Match", etag, "Range", "bytes=0-9").status());

        final S3Answer.ObjectBody overridden = body(get("/lake/t/data.bin?response-content-type=text%2Fcsv" +
            "&response-content-disposition=attachment%3B%20filename%3Dd.csv&response-cache-control=no-cache"));
        assertEquals("text/csv", overridden.headers().get("Content-Type"));
        assertEquals("attachment; filename=d.csv", overridden.headers().get("Content-Disposition"));
        assertEquals("no-cache", overridden.headers().get("Cache-Control"));
        assertEquals("InvalidArgument", code(get("/lake/t/data.bin?response-content-type=a%0Db")));

        final S3Answer.ObjectBody head = body(answer(service(S3WriteMode.REFUSE, List.of()), "HEAD",
            "/lake/t/data.bin", new DefaultHttpHeaders(), Unpooled.EMPTY_BUFFER));
        assertEquals(etag, head.headers().get("ETag"));
        assertEquals("10000", head.headers().get("Content-Length"));
    }

    @Test
    void missingThingsAndBadKeysGetTheirCodes() throws Exception
    {
        final S3Answer missing = get("/lake/t/none");
        assertEquals(404, missing.status());
        assertEquals("NoSuchKey", code(missing));
        assertTrue(((S3Answer.Complete) missing).body().contains("<Key>t/none</Key>"));
        assertTrue(((S3Answer.Complete) missing).body().contains("<RequestId>req-1</RequestId>"));
        assertEquals("NoSuchBucket", code(get("/other/t/data.bin")));
        assertEquals("NoSuchBucket", code(get("/other?list-type=2")));
        assertEquals("InvalidArgument", code(get("/lake/t/../u")));
        assertEquals("InvalidArgument", code(get("/lake/t//data.bin")));
        assertEquals("KeyTooLongError", code(get("/lake/" + "k".repeat(65))));
        assertEquals("InvalidArgument", code(get("/lake/t/data.bin?versionId=3HL4kqtJlcpXroDTDmJ")));
        assertEquals(200, body(get("/lake/t/data.bin?versionId=null")).status());
        assertEquals("NotImplemented", code(get("/lake?versioning")));
        final S3Answer prefixed = answer(service(S3WriteMode.REFUSE, List.of("t/d/")), "GET", "/lake/t/data.bin",
            new DefaultHttpHeaders(), Unpooled.EMPTY_BUFFER);
        assertEquals("AccessDenied", code(prefixed));
    }

    @Test
    void listingsAndBucketCallsPassThroughToTheOrigin() throws Exception
    {
        final S3Answer.Complete listing = (S3Answer.Complete) get("/lake?list-type=2&prefix=t%2F&delimiter=%2F");
        assertEquals(200, listing.status());
        assertTrue(listing.body().contains("<Key>t/data.bin</Key>") && listing.body().contains("<Key>t/empty</Key>"),
            listing.body());
        assertTrue(listing.body().contains("<CommonPrefixes><Prefix>t/d/</Prefix></CommonPrefixes>"));
        assertTrue(listing.body().contains("<Size>10000</Size>"));
        assertTrue(listing.body().contains(body(get("/lake/t/data.bin")).headers().get("ETag")
            .replace("\"", "&quot;")), "the listing's tag is the HEAD's");
        Files.writeString(root.resolve("t/new"), "appears at once: listings are never cached");
        assertTrue(((S3Answer.Complete) get("/lake?list-type=2&prefix=t%2F")).body().contains("<Key>t/new</Key>"));

        final S3Answer.Complete limited = (S3Answer.Complete) answer(service(S3WriteMode.REFUSE, List.of("t/d/")),
            "GET", "/lake?list-type=2", new DefaultHttpHeaders(), Unpooled.EMPTY_BUFFER);
        assertTrue(limited.body().contains("<Key>t/d/x</Key>") && !limited.body().contains("t/data.bin") &&
            !limited.body().contains("<Key>u</Key>"), "only keys under the allowed prefixes: " + limited.body());
        assertEquals("InvalidArgument", code(get("/lake?list-type=2&continuation-token=%21%21")));

        final S3Answer head = answer(service(S3WriteMode.REFUSE, List.of()), "HEAD", "/lake",
            new DefaultHttpHeaders(), Unpooled.EMPTY_BUFFER);
        assertEquals(200, head.status());
        assertEquals("eu-west-3", head.headers().get("x-amz-bucket-region"));
        assertTrue(((S3Answer.Complete) get("/lake?location")).body().contains(">eu-west-3</LocationConstraint>"));
        assertTrue(((S3Answer.Complete) get("/")).body().contains("<Name>lake</Name>"));
    }

    @Test
    void writesAreRefusedOrPassedThrough() throws Exception
    {
        final byte[] put = "written through".getBytes(StandardCharsets.UTF_8);
        final S3Answer refused = answer(service(S3WriteMode.REFUSE, List.of()), "PUT", "/lake/t/w",
            new DefaultHttpHeaders(), Unpooled.wrappedBuffer(put));
        assertEquals(403, refused.status());
        assertEquals("AccessDenied", code(refused));
        assertFalse(Files.exists(root.resolve("t/w")));
        assertEquals("AccessDenied", code(answer(service(S3WriteMode.REFUSE, List.of()), "DELETE", "/lake/u",
            new DefaultHttpHeaders(), Unpooled.EMPTY_BUFFER)));
        assertTrue(Files.exists(root.resolve("u")));

        final S3Service writable = service(S3WriteMode.PASS_THROUGH, List.of());
        final String md5 = Base64.getEncoder().encodeToString(MessageDigest.getInstance("MD5").digest(put));
        final S3Answer written = answer(writable, "PUT", "/lake/t/w", new DefaultHttpHeaders().set("Content-MD5", md5),
            Unpooled.wrappedBuffer(put));
        assertEquals(200, written.status());
        assertArrayEquals(put, Files.readAllBytes(root.resolve("t/w")));
        assertEquals(body(get("/lake/t/w")).headers().get("ETag"), written.headers().get("ETag"));
        assertEquals("BadDigest", code(answer(writable, "PUT", "/lake/t/w2",
            new DefaultHttpHeaders().set("Content-MD5", md5), Unpooled.wrappedBuffer(data))));
        assertFalse(Files.exists(root.resolve("t/w2")));
        assertEquals(204, answer(writable, "DELETE", "/lake/t/w", new DefaultHttpHeaders(), Unpooled.EMPTY_BUFFER)
            .status());
        assertFalse(Files.exists(root.resolve("t/w")));
        assertEquals("NotImplemented", code(answer(writable, "POST", "/lake/t/big?uploads", new DefaultHttpHeaders(),
            Unpooled.EMPTY_BUFFER)));
        assertEquals("InvalidArgument", code(answer(writable, "PUT", "/lake/t/../../escape",
            new DefaultHttpHeaders(), Unpooled.wrappedBuffer(put))));
    }
}
