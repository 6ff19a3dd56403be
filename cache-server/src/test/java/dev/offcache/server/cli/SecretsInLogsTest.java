package dev.offcache.server.cli;

import java.net.URI;
import java.net.URLDecoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.sync.ResponseTransformer;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3Configuration;
import software.amazon.awssdk.services.s3.presigner.S3Presigner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * No signature, credential or key reaches the server's log: the real program in a child JVM with the access log on,
 * in both built-in formats, its whole stderr read; presigned URLs (SigV4, with a session token, and SigV2's query
 * form), header-signed requests from the AWS SDK (their {@code Authorization} captured as sent), and {@code /obj}
 * requests with good and bad bearer keys and signing parameters in the query. Every secret value the clients sent is
 * then searched for in everything the program printed; the access-log lines are there, with the names of the
 * parameters and {@code REDACTED} for their values.
 */
class SecretsInLogsTest
{
    private static final String ID = "OCLOGSECRETS000001";
    private static final String SECRET = "log/secret+0123456789abcdefghijklmn";
    private static final String BEARER = "bearer-key-for-the-log-test-0123";
    private static final String WRONG_BEARER = "not-the-bearer-key-0123456789abc";
    private static final String TOKEN = "FwoGZXIvYXdzEXAMPLESESSIONTOKEN0123456789abcdefghijklmnopqrstuv";
    private static final Pattern PARAMETER = Pattern.compile("[?&]([A-Za-z-]+)=([^&]+)");

    @TempDir
    Path tmp;

    @ParameterizedTest
    @ValueSource(strings = {"text", "json"})
    void noSecretReachesAnyLogLine(final String format) throws Exception
    {
        final Path origin = Files.createDirectories(tmp.resolve("origin"));
        Files.write(origin.resolve("data.bin"), new byte[1000]);
        final ChildServer child = ChildServer.launch(tmp, List.of("-Xmx128m", "-XX:MaxDirectMemorySize=192m"),
            "--listen", "127.0.0.1:0", "--origin-dir", origin.toString(), "--ram-mb", "16", "--api-keys", BEARER,
            "--s3-api-listen", "127.0.0.1:0", "--s3-api-keys", ID + ":" + SECRET, "--s3-api-bucket", "lake",
            "--access-log", "--log-format", format);
        final List<String> secrets = new ArrayList<>(List.of(SECRET, BEARER, WRONG_BEARER, TOKEN));
        final List<String> output;
        try
        {
            final URI s3 = URI.create("http://127.0.0.1:" + child.s3Port());
            final String obj = "http://127.0.0.1:" + child.listeningPort() + "/obj/data.bin";
            final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

            // presigned SigV4 URLs: plain, and with a session token
            for (final StaticCredentialsProvider credentials : List.of(
                StaticCredentialsProvider.create(AwsBasicCredentials.create(ID, SECRET)),
                StaticCredentialsProvider.create(AwsSessionCredentials.create(ID, SECRET, TOKEN))))
            {
                try (S3Presigner presigner = S3Presigner.builder().endpointOverride(s3).region(Region.US_EAST_1)
                    .credentialsProvider(credentials)
                    .serviceConfiguration(S3Configuration.builder().pathStyleAccessEnabled(true).build()).build())
                {
                    final String url = presigner.presignGetObject((r) -> r.signatureDuration(Duration.ofMinutes(5))
                        .getObjectRequest((g) -> g.bucket("lake").key("data.bin"))).url().toString();
                    secrets.addAll(values(url, "X-Amz-Signature", "X-Amz-Credential", "X-Amz-Security-Token"));
                    final int status = http.send(HttpRequest.newBuilder(URI.create(url)).build(),
                        HttpResponse.BodyHandlers.discarding()).statusCode();
                    assertTrue(status == 200 || status == 403, "presigned GET: " + status);
                }
            }
            // SigV2's query form, whatever the server makes of it
            final String v2 = s3 + "/lake/data.bin?AWSAccessKeyId=" + ID + "&Expires=4102444800&Signature=" +
                "v2Sig%2BValueForTheLogTest%3D";
            secrets.add("v2Sig%2BValueForTheLogTest%3D");
            http.send(HttpRequest.newBuilder(URI.create(v2)).build(), HttpResponse.BodyHandlers.discarding());

            // header-signed requests from the SDK, their Authorization captured as sent
            final List<String> authorizations = new ArrayList<>();
            try (S3Client client = S3Client.builder().endpointOverride(s3).region(Region.US_EAST_1)
                .forcePathStyle(true)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(ID, SECRET)))
                .overrideConfiguration((c) -> c.addExecutionInterceptor(new ExecutionInterceptor()
                {
                    @Override
                    public void beforeTransmission(
                        final Context.BeforeTransmission context, final ExecutionAttributes attributes)
                    {
                        context.httpRequest().firstMatchingHeader("Authorization").ifPresent(authorizations::add);
                    }
                }))
                .httpClientBuilder(Apache5HttpClient.builder()).build())
            {
                client.getObject((r) -> r.bucket("lake").key("data.bin").range("bytes=0-9"),
                    ResponseTransformer.toBytes());
                client.headObject((r) -> r.bucket("lake").key("data.bin"));
                client.listObjectsV2((r) -> r.bucket("lake"));
            }
            assertEquals(3, authorizations.size(), authorizations.toString());
            for (final String authorization : authorizations)
            {
                secrets.add(authorization.substring(authorization.indexOf("Signature=") + "Signature=".length()));
                secrets.add(authorization);
            }

            // /obj: good and bad bearer keys, signing parameters in the query
            for (final String key : List.of(BEARER, WRONG_BEARER))
            {
                http.send(HttpRequest.newBuilder(URI.create(obj)).header("Authorization", "Bearer " + key).build(),
                    HttpResponse.BodyHandlers.discarding());
            }
            final String signedObj = obj + "?X-Amz-Signature=0bj5ignature0123456789abcdef&X-Amz-Credential=" +
                "OBJCRED%2F20260101%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Security-Token=objT0ken0123456789";
            secrets.addAll(List.of("0bj5ignature0123456789abcdef", "OBJCRED", "objT0ken0123456789"));
            http.send(HttpRequest.newBuilder(URI.create(signedObj)).header("Authorization", "Bearer " + BEARER)
                .build(), HttpResponse.BodyHandlers.discarding());
            // 3 presigned or query-signed S3 requests + 3 SDK requests + 3 /obj requests, each one access-log line
            final long deadline = System.nanoTime() + 30_000_000_000L;
            while (accessLines(child.output()) < 9 && System.nanoTime() < deadline)
            {
                Thread.sleep(20);
            }
        }
        finally
        {
            child.terminate();
            assertEquals(143, child.exit());
            output = child.output();
        }
        assertEquals(9, accessLines(output), () -> String.join("\n", output));
        assertTrue(output.stream().anyMatch((line) -> line.contains("lake") && line.contains("data.bin?X-Amz-") &&
            line.contains("X-Amz-Signature=REDACTED") && line.contains("X-Amz-Credential=REDACTED")),
            () -> String.join("\n", output));
        assertTrue(output.stream().anyMatch((line) -> line.contains("X-Amz-Security-Token=REDACTED")));
        final String all = String.join("\n", output);
        for (final String secret : secrets)
        {
            assertFalse(all.contains(secret), () -> "the log holds '" + secret + "':\n" + all);
            final String decoded = URLDecoder.decode(secret, StandardCharsets.UTF_8);
            assertFalse(all.contains(decoded), () -> "the log holds '" + decoded + "':\n" + all);
        }
        assertFalse(all.contains(ID), () -> "the log names the access key id:\n" + all);
    }

    private static long accessLines(final List<String> lines)
    {
        return lines.stream().filter((line) -> line.contains("offcache.access")).count();
    }

    /** The values of the named query parameters of a URL. */
    private static List<String> values(final String url, final String... names)
    {
        final Map<String, String> wanted = new java.util.HashMap<>();
        final Matcher matcher = PARAMETER.matcher(url);
        while (matcher.find())
        {
            wanted.put(matcher.group(1), matcher.group(2));
        }
        final List<String> values = new ArrayList<>();
        for (final String name : names)
        {
            if (wanted.containsKey(name))
            {
                values.add(wanted.get(name));
            }
        }
        return values;
    }
}
