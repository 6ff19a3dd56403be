package dev.offcache.server.cli;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Exception;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A read-only S3 API (the default {@code --s3-api-writes REFUSE}) refuses every {@code PutObject} as it refuses a
 * {@code DeleteObject}: {@code 403 AccessDenied} whose message names {@code --s3-api-writes}, counted in
 * {@code offcache_server_http_requests_total} and {@code offcache_server_s3_errors_total}, one access-log line each;
 * whether the client asks {@code 100-continue} (the AWS SDK does), sends a body over {@code --max-body-kb}, or a
 * small one. The real program in a child JVM, its log read from its stderr; the AWS SDK and curl as clients.
 */
class RefusedWritesTest
{
    private static final String ID = "OCREFUSEDWRITES0001";
    private static final String SECRET = "refused/secret+0123456789abcdefghij";
    private static final String BEARER = "bearer-key-0123456789abcdef";

    @TempDir
    Path tmp;

    @Test
    void aRefusedPutIsCountedLoggedAndNamesTheFlagLikeARefusedDelete() throws Exception
    {
        final Path origin = Files.createDirectories(tmp.resolve("origin"));
        Files.writeString(origin.resolve("kept.txt"), "kept");
        final ChildServer child = ChildServer.launch(tmp, List.of("-Xmx128m", "-XX:MaxDirectMemorySize=192m"),
            "--listen", "127.0.0.1:0", "--origin-dir", origin.toString(), "--ram-mb", "16", "--api-keys", BEARER,
            "--s3-api-listen", "127.0.0.1:0", "--s3-api-keys", ID + ":" + SECRET, "--access-log");
        try
        {
            final int s3Port = child.s3Port();
            final int port = child.listeningPort();
            final URI endpoint = URI.create("http://127.0.0.1:" + s3Port);
            try (S3Client s3 = S3Client.builder().endpointOverride(endpoint).region(Region.US_EAST_1)
                .forcePathStyle(true)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(ID, SECRET)))
                .httpClientBuilder(Apache5HttpClient.builder()).build())
            {
                // the SDK sends PutObject with Expect: 100-continue: a small body, and one over --max-body-kb
                for (final int size : new int[] {10, 2 * 1024 * 1024})
                {
                    final S3Exception refused = assertThrows(S3Exception.class, () -> s3.putObject((r) -> r
                        .bucket("offcache").key("new-" + size + ".bin"), RequestBody.fromBytes(new byte[size])));
                    assertEquals(403, refused.statusCode(), refused.toString());
                    assertEquals("AccessDenied", refused.awsErrorDetails().errorCode(), refused.toString());
                    assertTrue(refused.awsErrorDetails().errorMessage().contains("--s3-api-writes"),
                        refused.awsErrorDetails().errorMessage());
                    assertTrue(refused.awsErrorDetails().errorMessage().contains("PutObject"),
                        refused.awsErrorDetails().errorMessage());
                }
                final S3Exception delete = assertThrows(S3Exception.class, () -> s3.deleteObject((r) -> r
                    .bucket("offcache").key("kept.txt")));
                assertEquals("AccessDenied", delete.awsErrorDetails().errorCode());
                assertTrue(delete.awsErrorDetails().errorMessage().contains("--s3-api-writes"));
            }
            // curl, header-signed, a 3 MiB body (curl asks 100-continue above 1 MiB) and a small one without Expect
            final Path big = Files.write(tmp.resolve("big.bin"), new byte[3 * 1024 * 1024]);
            for (final List<String> body : List.of(List.of("--data-binary", "@" + big), List.of("-H", "Expect:",
                "--data-binary", "small")))
            {
                final List<String> args = new java.util.ArrayList<>(List.of("-X", "PUT", "--aws-sigv4",
                    "aws:amz:us-east-1:s3", "--user", ID + ":" + SECRET,
                    "-H", "x-amz-content-sha256: UNSIGNED-PAYLOAD"));
                args.addAll(body);
                args.add(endpoint + "/offcache/curl.bin");
                final Curl.Result put = Curl.run(args.toArray(new String[0]));
                assertEquals(403, put.status(), put.output());
                assertTrue(put.output().contains("<Code>AccessDenied</Code>") &&
                    put.output().contains("--s3-api-writes"), put.output());
            }
            assertFalse(Files.exists(origin.resolve("new-10.bin")) || Files.exists(origin.resolve("curl.bin")));
            assertTrue(Files.exists(origin.resolve("kept.txt")));

            final String metrics = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + port + "/metrics")).header("Authorization", "Bearer " + BEARER)
                .build(), HttpResponse.BodyHandlers.ofString()).body();
            assertEquals(4, counter(metrics, "offcache_server_http_requests_total", "s3_PutObject", "403"), metrics);
            assertEquals(1, counter(metrics, "offcache_server_http_requests_total", "s3_DeleteObject", "403"));
            assertEquals(5, counter(metrics, "offcache_server_s3_errors_total", "AccessDenied", null), metrics);

            final List<String> access = child.output().stream().filter((line) -> line.contains("offcache.access"))
                .toList();
            assertEquals(4, access.stream().filter((line) -> line.contains(" PUT /offcache/") &&
                line.contains(" status=403 ") && line.contains(" api=s3_PutObject ")).count(), String.join("\n",
                access));
            assertEquals(1, access.stream().filter((line) -> line.contains(" DELETE /offcache/kept.txt") &&
                line.contains(" status=403 ") && line.contains(" api=s3_DeleteObject ")).count());
        }
        finally
        {
            child.terminate();
            child.exit();
        }
    }

    /** A counter's value from the metrics page, by its first label (endpoint or code) and status (or none). */
    private static long counter(final String metrics, final String name, final String label, final String status)
    {
        long total = 0;
        final Pattern line = Pattern.compile("^" + name + "\\{([^}]*)} (\\S+)$", Pattern.MULTILINE);
        final Matcher matcher = line.matcher(metrics);
        while (matcher.find())
        {
            final String labels = matcher.group(1);
            if (labels.contains("\"" + label + "\"") && (null == status || labels.contains("\"" + status + "\"")))
            {
                total += (long) Double.parseDouble(matcher.group(2));
            }
        }
        return total;
    }
}
