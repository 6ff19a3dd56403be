package dev.offcache.server.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import dev.offcache.range.config.InvalidSettingException;
import dev.offcache.range.engine.RangeCache;
import dev.offcache.range.engine.RangeCacheBuilder;
import dev.offcache.range.origin.FileSystemOrigin;
import dev.offcache.server.http.L2HttpServer;
import dev.offcache.server.tier.TieredBlockStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.sync.ResponseTransformer;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class OffcacheServerCommandTest
{
    @TempDir
    Path tmp;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private CommandLine commandLine(final Map<String, String> env)
    {
        return commandLine(env, null);
    }

    private CommandLine commandLine(final Map<String, String> env, final Path configFile)
    {
        final CommandLine commandLine = OffcacheServerCommand.commandLine(env, configFile);
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(err, true));
        return commandLine;
    }

    @Test
    void flagsWinOverTheEnvironmentWhichWinsOverTheConfigFileWhichWinsOverDefaults() throws Exception
    {
        final Path file = Files.writeString(tmp.resolve("server.properties"),
            "# settings\nram-mb = 11\ndisk-mb=22\nmemory-budget-mb=33\n");
        final String[] args = {"--config", file.toString(), "--memory-budget-mb", "3333"};
        final Map<String, String> env = Map.of("OFFCACHE_DISK_MB", "222", "OFFCACHE_MEMORY_BUDGET_MB", "333");
        assertEquals(file, EnvironmentDefaults.configFileOf(args, env));
        final CommandLine commandLine = OffcacheServerCommand.commandLine(env, EnvironmentDefaults.configFileOf(args,
            env));
        commandLine.parseArgs(args);
        final OffcacheServerCommand command = commandLine.getCommand();
        assertEquals(11, command.ramMb, "from the file");
        assertEquals(222, command.diskMb, "the environment over the file");
        assertEquals(3333, command.memoryBudgetMb, "the flag over both");
        assertEquals(1024, command.blockSizeKb, "the default");

        assertEquals(file, EnvironmentDefaults.configFileOf(new String[] {"--config=" + file}, Map.of()));
        assertEquals(file, EnvironmentDefaults.configFileOf(new String[0], Map.of("OFFCACHE_CONFIG", file.toString())));
    }

    @Test
    void aBadConfigFileIsRefusedNamingTheFileAndTheKey() throws Exception
    {
        final Path file = Files.writeString(tmp.resolve("bad.properties"), "ram-mb=0\n");
        assertEquals(2, commandLine(Map.of(), file).execute("--config", file.toString()));
        assertTrue(err.toString().contains("Invalid value for --ram-mb (env OFFCACHE_RAM_MB): ramCapacityBytes must " +
            "hold at least one block (1048576 bytes), was 0 (set in " + file + ")"), err.toString());

        final Path typo = Files.writeString(tmp.resolve("typo.properties"), "ram_mb=64\nlisten=127.0.0.1:0\n");
        assertEquals(2, commandLine(Map.of(), typo).execute("--config", typo.toString()));
        assertTrue(err.toString().contains("--config (env OFFCACHE_CONFIG): " + typo + " sets ram_mb, which no " +
            "option has"), err.toString());

        final Path missing = tmp.resolve("missing.properties");
        assertEquals(2, commandLine(Map.of(), missing).execute("--config", missing.toString()));
        assertTrue(err.toString().contains("cannot read " + missing), err.toString());
    }

    @Test
    void helpListsEveryOptionWithItsEnvironmentVariable()
    {
        final CommandLine commandLine = commandLine(Map.of());
        assertEquals(0, commandLine.execute("--help"));
        final String help = out.toString();
        for (final CommandLine.Model.OptionSpec option : commandLine.getCommandSpec().options())
        {
            if (option.usageHelp() || option.versionHelp())
            {
                continue;
            }
            assertTrue(help.contains(option.longestName()), option.longestName());
            assertTrue(String.join(" ", option.description()).contains(
                "env " + EnvironmentDefaults.variableOf(option.longestName())), option.longestName());
        }
    }

    @Test
    void engineSettingsAreCheckedByTheEngineNamingTheFlagAndShowTheEnginesDefaults()
    {
        engineRefuses(RangeCache.newBuilder().blockSize(1000 * 1024), "--block-size-kb", "1000");
        engineRefuses(RangeCache.newBuilder().maxCoalescedGetBytes(1000), "--max-coalesced-get-bytes", "1000");
        engineRefuses(RangeCache.newBuilder().fetchPermits(0, 8), "--fetch-permits", "0");
        final int permits = RangeCacheBuilder.L2_FETCH_PERMITS;
        engineRefuses(RangeCache.newBuilder().fetchPermits(permits, permits), "--demand-reserved-permits",
            String.valueOf(permits));
        engineRefuses(RangeCache.newBuilder().originTimeout(Duration.ZERO), "--origin-timeout-ms", "0");
        engineRefuses(RangeCache.newBuilder().maxObjects(0), "--max-objects", "0");

        final CommandLine commandLine = commandLine(Map.of());
        assertEquals(0, commandLine.execute("--help"));
        final String help = out.toString().replaceAll("\\s+", " ");
        final Map<String, String> engineDefaults = Map.of(
            "--block-size-kb", String.valueOf(RangeCacheBuilder.DEFAULT_BLOCK_SIZE / 1024),
            "--fetch-permits", String.valueOf(RangeCacheBuilder.Deployment.L2.permits()),
            "--demand-reserved-permits", String.valueOf(RangeCacheBuilder.Deployment.L2.demandReserved()),
            "--max-coalesced-get-bytes", String.valueOf(RangeCacheBuilder.DEFAULT_MAX_COALESCED_GET_BYTES),
            "--origin-timeout-ms", String.valueOf(RangeCacheBuilder.DEFAULT_ORIGIN_TIMEOUT_MS),
            "--max-objects", String.valueOf(RangeCacheBuilder.DEFAULT_MAX_OBJECTS));
        for (final Map.Entry<String, String> option : engineDefaults.entrySet())
        {
            final String label = " " + option.getKey() + "=";
            final int at = help.indexOf(label);
            assertTrue(at >= 0, option.getKey());
            final int shown = help.indexOf("Default: ", at) + "Default: ".length();
            assertEquals(option.getValue() + ".", help.substring(shown, help.indexOf(' ', shown)), option.getKey());
        }
        assertTrue(help.contains("a power of two from " + RangeCacheBuilder.MIN_BLOCK_SIZE / 1024 + " to " +
            RangeCacheBuilder.MAX_BLOCK_SIZE / 1024), "the engine's bounds in the help");
        // every engine setting a flag sets is one the mapping knows, and each flag exists
        for (final String flag : OffcacheServerCommand.ENGINE_FLAGS.values())
        {
            assertTrue(commandLine.getCommandSpec().findOption(flag) != null, flag);
        }
    }

    /**
     * Each server component checks its own flags: a bad value gets exit status 2 and one line, the component's own
     * message for the same value with the flag and its variable named, before anything is made (the SSD directory
     * is not created).
     */
    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("badComponentValues")
    void componentSettingsAreCheckedByTheComponentNamingTheFlag(
        final String flag, final String value, final Executable sameValue) throws Exception
    {
        final InvalidSettingException expected = assertThrows(InvalidSettingException.class, sameValue);
        final Path disk = tmp.resolve("ssd");
        // a directory that is not there: a value the component took would end the start there, not run a server
        assertEquals(2, commandLine(Map.of()).execute("--disable-auth", "--origin-dir", tmp.resolve("none").toString(),
            "--disk-path", disk.toString(), flag, value));
        final List<String> lines = err.toString().lines().toList();
        assertEquals(List.of("offcache-server: Invalid value for " + flag + " (env " +
            EnvironmentDefaults.variableOf(flag) + "): " + expected.getMessage(), "Try 'offcache-server --help'."),
            lines);
        assertFalse(Files.exists(disk), "nothing made before the check");
    }

    static Stream<Arguments> badComponentValues()
    {
        final int block = RangeCacheBuilder.DEFAULT_BLOCK_SIZE;
        return Stream.of(
            bad("--memory-budget-mb", "0", () -> server().memoryBudgetBytes(0).validate(block)),
            bad("--prefetch-queue", "0", () -> server().prefetchQueueCapacity(0).validate(block)),
            bad("--prefetch-threads", "0", () -> server().prefetchThreads(0).validate(block)),
            bad("--max-ranges", "0", () -> server().maxRanges(0).validate(block)),
            bad("--max-body-kb", "0", () -> server().maxBodyBytes(0).validate(block)),
            bad("--max-body-kb", "2097152", () -> server().maxBodyBytes(Integer.MAX_VALUE).validate(block)),
            bad("--max-key-length", "0", () -> server().maxKeyLength(0).validate(block)),
            bad("--max-key-length", "2049", () -> server().maxKeyLength(2049).validate(block)),
            bad("--max-connections", "0", () -> server().maxConnections(0).validate(block)),
            bad("--max-connections-per-address", "0", () -> server().maxConnectionsPerAddress(0).validate(block)),
            bad("--request-read-timeout-ms", "0", () -> server().requestReadTimeout(Duration.ZERO).validate(block)),
            bad("--io-threads", "-1", () -> server().ioThreads(-1).validate(block)),
            bad("--shutdown-grace-seconds", "-1",
                () -> server().shutdownGrace(Duration.ofSeconds(-1)).validate(block)),
            bad("--shutdown-unready-seconds", "-1",
                () -> server().unreadyDelay(Duration.ofSeconds(-1)).validate(block)),
            bad("--ram-mb", "0", () -> store().ramCapacityBytes(0).validate()),
            bad("--disk-mb", "1", () -> store().ssdCapacityBytes(1L << 20).validate()),
            bad("--disk-mb", "-9223372036854775808", () -> store().ssdCapacityBytes(Long.MIN_VALUE).validate()),
            bad("--ssd-scrub-mb-per-s", "-1", () -> store().ssdScrubBytesPerSecond(-1L << 20).validate()),
            bad("--ssd-read-threads", "0", () -> store().ssdReadThreads(0).validate()),
            bad("--ssd-open-files", "-1", () -> store().ssdOpenFiles(-1).validate()));
    }

    private static Arguments bad(final String flag, final String value, final Executable sameValue)
    {
        return Arguments.of(flag, value, sameValue);
    }

    private static L2HttpServer.Context server()
    {
        return new L2HttpServer.Context();
    }

    private static TieredBlockStore.Context store()
    {
        return new TieredBlockStore.Context();
    }

    @Test
    void everyComponentSettingAFlagSetsIsMappedToAnExistingFlagAndShowsTheComponentsDefault()
    {
        final CommandLine commandLine = commandLine(Map.of());
        for (final Map<String, String> flags : List.of(OffcacheServerCommand.ENGINE_FLAGS,
            OffcacheServerCommand.STORE_FLAGS, OffcacheServerCommand.SERVER_FLAGS))
        {
            for (final String flag : flags.values())
            {
                assertTrue(commandLine.getCommandSpec().findOption(flag) != null, flag);
            }
        }
        final Map<String, Long> defaults = Map.ofEntries(
            Map.entry("--memory-budget-mb", L2HttpServer.Context.DEFAULT_MEMORY_BUDGET_BYTES >> 20),
            Map.entry("--prefetch-queue", (long) L2HttpServer.Context.DEFAULT_PREFETCH_QUEUE_CAPACITY),
            Map.entry("--max-ranges", (long) L2HttpServer.Context.DEFAULT_MAX_RANGES),
            Map.entry("--max-body-kb", (long) L2HttpServer.Context.DEFAULT_MAX_BODY_BYTES >> 10),
            Map.entry("--max-key-length", (long) L2HttpServer.Context.DEFAULT_MAX_KEY_LENGTH),
            Map.entry("--ram-mb", TieredBlockStore.Context.DEFAULT_RAM_CAPACITY_BYTES >> 20),
            Map.entry("--disk-mb", TieredBlockStore.Context.DEFAULT_SSD_CAPACITY_BYTES >> 20),
            Map.entry("--ssd-scrub-mb-per-s", TieredBlockStore.Context.SERVER_SSD_SCRUB_BYTES_PER_SECOND >> 20),
            Map.entry("--ssd-read-threads", (long) TieredBlockStore.Context.DEFAULT_SSD_READ_THREADS),
            Map.entry("--fetch-threads", (long) FileSystemOrigin.DEFAULT_IO_THREADS));
        for (final Map.Entry<String, Long> option : defaults.entrySet())
        {
            assertEquals(String.valueOf(option.getValue()),
                commandLine.getCommandSpec().findOption(option.getKey()).defaultValue(), option.getKey());
        }
    }

    /** The server's error for a flag is the engine's own message for the same value, with the flag named. */
    private void engineRefuses(final RangeCacheBuilder sameValue, final String flag, final String value)
    {
        final InvalidSettingException expected = assertThrows(InvalidSettingException.class, sameValue::validate);
        err.getBuffer().setLength(0);
        // a directory that is not there: a value the engine took would end the start there, not run a server
        assertEquals(2, commandLine(Map.of()).execute("--disable-auth", "--origin-dir", tmp.resolve("none").toString(),
            flag, value));
        assertEquals("offcache-server: Invalid value for " + flag + " (env " + EnvironmentDefaults.variableOf(flag) +
            "): " + expected.getMessage(), err.toString().lines().findFirst().orElse(""), flag);
    }

    @Test
    void invalidValuesAreRefusedNamingTheFlagAndTheVariable()
    {
        assertEquals(2, commandLine(Map.of()).execute("--ram-mb", "0"));
        assertTrue(err.toString().contains("--ram-mb") && err.toString().contains("OFFCACHE_RAM_MB"), err.toString());

        err.getBuffer().setLength(0);
        assertEquals(2, commandLine(Map.of("OFFCACHE_MEMORY_BUDGET_MB", "lots")).execute());
        assertTrue(err.toString().contains("--memory-budget-mb") &&
            err.toString().contains("OFFCACHE_MEMORY_BUDGET_MB"), err.toString());

        err.getBuffer().setLength(0);
        assertEquals(2, commandLine(Map.of("OFFCACHE_FETCH_PERMITS", "4", "OFFCACHE_DEMAND_RESERVED_PERMITS", "4"))
            .execute("--disable-auth"));
        assertTrue(err.toString().contains("--demand-reserved-permits") &&
            err.toString().contains("OFFCACHE_DEMAND_RESERVED_PERMITS"), err.toString());
        err.getBuffer().setLength(0);
        assertEquals(2, commandLine(Map.of()).execute("--disable-auth", "--max-coalesced-get-bytes", "1000"));
        assertTrue(err.toString().contains("--max-coalesced-get-bytes"), err.toString());
        err.getBuffer().setLength(0);
        assertEquals(2, commandLine(Map.of()).execute("--block-size-kb", "1000"));
        assertTrue(err.toString().contains("--block-size-kb"), err.toString());

        err.getBuffer().setLength(0);
        assertEquals(2, commandLine(Map.of()).execute("--listen", "nowhere"));
        assertTrue(err.toString().contains("--listen"), err.toString());

        err.getBuffer().setLength(0);
        assertEquals(2, commandLine(Map.of()).execute("--transport", "carrier-pigeon"));
        assertTrue(err.toString().contains("--transport"), err.toString());

        err.getBuffer().setLength(0);
        assertEquals(2, commandLine(Map.of()).execute("--origin-dir", tmp.toString(), "--listen", "127.0.0.1:0"));
        assertTrue(err.toString().contains("OFFCACHE_API_KEYS"), "refuses to start without keys: " + err);

        err.getBuffer().setLength(0);
        assertEquals(2, commandLine(Map.of("OFFCACHE_API_KEYS", "short")).execute("--origin-dir", tmp.toString()));
        assertTrue(err.toString().contains("OFFCACHE_API_KEYS"), err.toString());
    }

    @Test
    void theS3ApiFlagsAreCheckedNamingFlagAndVariable()
    {
        final String dir = tmp.toString();
        final String[][] cases = {
            {"--s3-api-keys", "--origin-dir", dir, "--disable-auth", "--s3-api-keys", "ID1:0123456789abcdef"},
            {"--s3-api-keys", "--origin-dir", dir, "--api-keys", "key-0123456789abcdef", "--s3-api-listen",
                "127.0.0.1:0"},
            {"--s3-api-keys", "--origin-dir", dir, "--disable-auth", "--s3-api-listen", "127.0.0.1:0",
                "--s3-api-keys", "ID1:short"},
            {"--s3-api-listen", "--origin-dir", dir, "--disable-auth", "--s3-api-listen", "nowhere"},
            {"--s3-api-listen", "--origin-dir", dir, "--disable-auth", "--listen", "127.0.0.1:9123",
                "--s3-api-listen", "127.0.0.1:9123"},
            {"--s3-api-bucket", "--origin-dir", dir, "--disable-auth", "--s3-api-listen", "127.0.0.1:0",
                "--s3-api-bucket", "Not_A_Bucket"},
            {"--s3-api-domain", "--origin-dir", dir, "--disable-auth", "--s3-api-listen", "127.0.0.1:0",
                "--s3-api-domain", "-bad-"},
            {"--s3-api-region", "--origin-dir", dir, "--disable-auth", "--s3-api-listen", "127.0.0.1:0",
                "--s3-api-region", "Mars Base"},
        };
        for (final String[] c : cases)
        {
            err.getBuffer().setLength(0);
            final String[] args = Arrays.copyOfRange(c, 1, c.length);
            assertEquals(2, commandLine(Map.of()).execute(args), String.join(" ", args));
            assertTrue(err.toString().contains(c[0]) &&
                err.toString().contains(EnvironmentDefaults.variableOf(c[0])), err.toString());
            assertFalse(err.toString().contains("0123456789abcdef"), "never echoes a secret: " + err);
        }
        err.getBuffer().setLength(0);
        assertEquals(2, commandLine(Map.of("OFFCACHE_S3_API_WRITES", "sometimes")).execute("--disable-auth"));
        assertTrue(err.toString().contains("--s3-api-writes") && err.toString().contains("OFFCACHE_S3_API_WRITES"),
            err.toString());
        err.getBuffer().setLength(0);
        assertEquals(2, commandLine(Map.of("OFFCACHE_S3_API_LISTEN", "127.0.0.1:0", "OFFCACHE_API_KEYS",
            "key-0123456789abcdef")).execute("--origin-dir", dir));
        assertTrue(err.toString().contains("OFFCACHE_S3_API_KEYS"), "set by the environment: " + err);
    }

    @Test
    void aBadBucketMappingIsRefusedAtStartNamingFlagAndVariable()
    {
        final String dir = tmp.toString();
        final String s3 = "http://127.0.0.1:1";
        final String[][] cases = {
            {"--s3-bucket", "--s3-endpoint", s3, "--s3-bucket", "lake,Bad_Bucket"},
            {"--s3-bucket", "--s3-endpoint", s3, "--s3-bucket", "lake,logs,lake"},
            {"--s3-bucket", "--s3-endpoint", s3, "--s3-bucket", "lake,"},
            {"--bucket-dirs", "--bucket-dirs", "local"},
            {"--bucket-dirs", "--bucket-dirs", "local="},
            {"--bucket-dirs", "--bucket-dirs", "Not_A_Bucket=" + dir},
            {"--bucket-dirs", "--bucket-dirs", "local=" + dir + ",local=" + dir},
            {"--bucket-dirs", "--s3-endpoint", s3, "--s3-bucket", "lake", "--bucket-dirs", "lake=" + dir},
            {"--bucket-dirs", "--bucket-dirs", "local=" + dir, "--origin-dir", dir},
            {"--bucket-dirs", "--bucket-dirs", "local=" + tmp.resolve("missing"), "--listen", "127.0.0.1:0"},
            {"--http-origin", "--bucket-dirs", "local=" + dir, "--http-origin", "http://127.0.0.1:1/"},
            {"--s3-api-bucket", "--bucket-dirs", "one=" + dir + ",two=" + dir, "--s3-api-listen", "127.0.0.1:0",
                "--s3-api-bucket", "three"},
        };
        for (final String[] c : cases)
        {
            err.getBuffer().setLength(0);
            final List<String> args = new ArrayList<>(Arrays.asList(c).subList(1, c.length));
            args.add("--disable-auth");
            assertEquals(2, commandLine(Map.of()).execute(args.toArray(new String[0])), String.join(" ", args));
            assertTrue(err.toString().contains("Invalid value for " + c[0] + " (env " +
                EnvironmentDefaults.variableOf(c[0]) + ")"), String.join(" ", args) + ": " + err);
        }
        err.getBuffer().setLength(0);
        assertEquals(2, commandLine(Map.of("OFFCACHE_BUCKET_DIRS", "local")).execute("--disable-auth"));
        assertTrue(err.toString().contains("OFFCACHE_BUCKET_DIRS") && err.toString().contains("NAME=DIR"),
            err.toString());
    }

    @Test
    void embeddedDefaultServesSamplesWithAPrintedKeyCurlLineAndAwsCliLine() throws Exception
    {
        final CommandLine commandLine = commandLine(Map.of());
        commandLine.parseArgs("--listen", "127.0.0.1:0", "--ram-mb", "16", "--memory-budget-mb", "16");
        final OffcacheServerCommand command = commandLine.getCommand();
        try (ServerProgram program = command.start())
        {
            final Matcher curl = Pattern.compile("curl -H 'Authorization: Bearer ([0-9a-f]+)' -r 0-99 (\\S+)")
                .matcher(out.toString());
            assertTrue(curl.find(), out.toString());
            final HttpResponse<byte[]> response = HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(URI.create(curl.group(2))).header("Authorization", "Bearer " + curl.group(1))
                    .header("Range", "bytes=0-99").build(),
                HttpResponse.BodyHandlers.ofByteArray());
            assertEquals(206, response.statusCode());
            final byte[] hello = Files.readAllBytes(
                Path.of(System.getProperty("java.io.tmpdir"), "offcache-origin", SampleObjects.HELLO));
            assertArrayEquals(hello, response.body());
            assertEquals(401, HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(curl.group(2)))
                .build(), HttpResponse.BodyHandlers.discarding()).statusCode());
            assertEquals(program.apiKey(), curl.group(1));

            // the printed AWS CLI line, its credentials, region, endpoint, bucket and key, run by the AWS SDK
            final Matcher aws = Pattern.compile("AWS_ACCESS_KEY_ID=(\\S+) AWS_SECRET_ACCESS_KEY=(\\S+) " +
                "AWS_DEFAULT_REGION=(\\S+) aws --endpoint-url (\\S+) s3api get-object --bucket (\\S+) --key (\\S+) " +
                "--range bytes=0-99 /dev/stdout").matcher(out.toString());
            assertTrue(aws.find(), out.toString());
            try (S3Client s3 = S3Client.builder().endpointOverride(URI.create(aws.group(4)))
                .region(Region.of(aws.group(3))).forcePathStyle(true)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(aws.group(1),
                    aws.group(2))))
                .httpClientBuilder(Apache5HttpClient.builder()).build())
            {
                assertArrayEquals(Arrays.copyOf(hello, Math.min(100, hello.length)), s3.getObject((r) -> r
                    .bucket(aws.group(5)).key(aws.group(6)).range("bytes=0-99"), ResponseTransformer.toBytes())
                    .asByteArray());
            }
        }
    }

    @Test
    void environmentConfiguresTheServer() throws Exception
    {
        Files.writeString(tmp.resolve("x.txt"), "from the environment");
        final Map<String, String> env = new HashMap<>();
        env.put("OFFCACHE_LISTEN", "127.0.0.1:0");
        env.put("OFFCACHE_ORIGIN_DIR", tmp.toString());
        env.put("OFFCACHE_DISK_PATH", tmp.resolve("ssd").toString());
        env.put("OFFCACHE_API_KEYS", "first-key-0123456789, second-key-0123456789");
        env.put("OFFCACHE_RAM_MB", "8");
        env.put("OFFCACHE_MEMORY_BUDGET_MB", "8");
        // engine settings share the engine's own variable names
        env.put("OFFCACHE_FETCH_PERMITS", "4");
        env.put("OFFCACHE_DEMAND_RESERVED_PERMITS", "1");
        env.put("OFFCACHE_RANGE_COUNTERS_FILE", tmp.resolve("range-counters.dat").toString());
        // an engine-process variable the server has no option for is named, not silently ignored
        env.put("OFFCACHE_L1_MB", "64");
        env.put("OFFCACHE_JAVA_OPTS", "-Xmx1g");
        final CommandLine commandLine = commandLine(env);
        commandLine.parseArgs();
        final OffcacheServerCommand command = commandLine.getCommand();
        try (ServerProgram program = command.start())
        {
            final int port = program.server().address().getPort();
            final HttpResponse<String> response = HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/obj/x.txt"))
                    .header("Authorization", "Bearer second-key-0123456789").build(),
                HttpResponse.BodyHandlers.ofString());
            assertEquals(200, response.statusCode());
            assertEquals("from the environment", response.body());
            assertTrue(Files.size(tmp.resolve("range-counters.dat")) > 0, "engine counters file mapped");
            assertTrue(err.toString().contains("ignoring OFFCACHE_L1_MB: no server option reads them"),
                err.toString());
            assertFalse(err.toString().contains("OFFCACHE_JAVA_OPTS"), "the launcher's variable is not warned about");
        }
        assertTrue(Files.isDirectory(tmp.resolve("ssd").resolve("blocks")), "an explicit disk path is kept");
    }
}
