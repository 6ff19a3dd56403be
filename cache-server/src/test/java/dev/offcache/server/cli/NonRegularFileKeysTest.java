package dev.offcache.server.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import software.amazon.awssdk.auth.credentials.AnonymousCredentialsProvider;
import software.amazon.awssdk.core.sync.ResponseTransformer;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Exception;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A key that names a directory (or a FIFO: anything but a regular file) under a local origin is a missing object,
 * as S3 answers for a key that is only a prefix: {@code 404} for GET, HEAD and a ranged GET through {@code /obj}
 * (curl, as a user types it), {@code NoSuchKey} through the S3 API (AWS SDK); never a {@code 200} whose body is then
 * cut. Both local origins: {@code --origin-dir} and {@code --bucket-dirs}.
 */
class NonRegularFileKeysTest
{
    @TempDir
    Path tmp;

    private ServerProgram start(final String... args)
    {
        final CommandLine commandLine = OffcacheServerCommand.commandLine(Map.of());
        commandLine.setOut(new PrintWriter(new StringWriter(), true));
        commandLine.setErr(new PrintWriter(new StringWriter(), true));
        commandLine.parseArgs(args);
        try
        {
            return commandLine.<OffcacheServerCommand>getCommand().start();
        }
        catch (final Exception ex)
        {
            throw new AssertionError(ex);
        }
    }

    /** A directory with an object, a directory and a FIFO in it. */
    private Path origin(final String name) throws Exception
    {
        final Path dir = Files.createDirectories(tmp.resolve(name));
        Files.writeString(dir.resolve("a.txt"), "an object in " + name);
        Files.createDirectories(dir.resolve("sub").resolve("deeper"));
        Files.writeString(dir.resolve("sub").resolve("deeper").resolve("b.txt"), "b");
        final Process mkfifo = new ProcessBuilder("mkfifo", dir.resolve("pipe").toString()).inheritIO().start();
        assertTrue(mkfifo.waitFor(30, TimeUnit.SECONDS) && mkfifo.exitValue() == 0, "mkfifo");
        return dir;
    }

    private static void assertMissing(final String url) throws Exception
    {
        final Curl.Result get = Curl.run(url);
        assertEquals(0, get.exit(), get.output());
        assertEquals(404, get.status(), get.output());
        final Curl.Result head = Curl.run("-I", url);
        assertEquals(0, head.exit(), head.output());
        assertEquals(404, head.status(), head.output());
        final Curl.Result ranged = Curl.run("-r", "0-10", url);
        assertEquals(0, ranged.exit(), ranged.output());
        assertEquals(404, ranged.status(), ranged.output());
    }

    @Test
    void aDirectoryOrFifoUnderOriginDirIsNotFound() throws Exception
    {
        final Path dir = origin("lake");
        try (ServerProgram program = start("--listen", "127.0.0.1:0", "--origin-dir", dir.toString(),
            "--disable-auth", "--ram-mb", "16", "--memory-budget-mb", "16",
            "--disk-path", tmp.resolve("ssd").toString(),
            "--s3-api-listen", "127.0.0.1:0"))
        {
            final String base = "http://127.0.0.1:" + program.server().address().getPort() + "/obj/";
            for (final String key : List.of("sub", "sub/deeper", "pipe"))
            {
                assertMissing(base + key);
            }
            // the objects beside them are served whole
            final Curl.Result object = Curl.run(base + "a.txt");
            assertEquals(200, object.status(), object.output());
            assertTrue(object.output().endsWith("\r\n\r\nan object in lake"), object.output());

            try (S3Client s3 = anonymous(program))
            {
                for (final String key : List.of("sub", "sub/deeper", "pipe"))
                {
                    assertThrows(NoSuchKeyException.class, () -> s3.getObject((r) -> r.bucket("offcache").key(key),
                        ResponseTransformer.toBytes()), key);
                    assertThrows(NoSuchKeyException.class, () -> s3.getObject((r) -> r.bucket("offcache").key(key)
                        .range("bytes=0-10"), ResponseTransformer.toBytes()), key);
                    assertEquals(404, assertThrows(S3Exception.class, () -> s3.headObject((r) -> r.bucket("offcache")
                        .key(key))).statusCode(), key);
                }
            }
        }
    }

    @Test
    void aDirectoryOrFifoUnderABucketDirIsNotFound() throws Exception
    {
        final Path lake = origin("lake");
        final Path logs = origin("logs");
        try (ServerProgram program = start("--listen", "127.0.0.1:0", "--bucket-dirs", "lake=" + lake + ",logs=" + logs,
            "--disable-auth", "--ram-mb", "16", "--memory-budget-mb", "16",
            "--disk-path", tmp.resolve("ssd").toString()))
        {
            final String base = "http://127.0.0.1:" + program.server().address().getPort() + "/obj/";
            for (final String key : List.of("lake/sub", "logs/sub/deeper", "logs/pipe"))
            {
                assertMissing(base + key);
            }
            final Curl.Result object = Curl.run(base + "logs/a.txt");
            assertEquals(200, object.status(), object.output());
            assertTrue(object.output().endsWith("\r\n\r\nan object in logs"), object.output());
        }
    }

    private static S3Client anonymous(final ServerProgram program)
    {
        return S3Client.builder()
            .endpointOverride(URI.create("http://127.0.0.1:" + program.server().s3Address().getPort()))
            .region(Region.US_EAST_1).forcePathStyle(true)
            .credentialsProvider(AnonymousCredentialsProvider.create())
            .httpClientBuilder(Apache5HttpClient.builder()).build();
    }
}
