package dev.offcache.server.cli;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The real {@code offcache-server} program in a child JVM (its {@code main}, its exit status, its temp dir): a
 * start that cannot work ends with one line naming the flag and the fix, exit status 2 and no temporary SSD
 * directory left behind; SIGTERM turns {@code /ready} to 503 (valid JSON) while the listener still serves, then
 * the program exits with 143 and deletes its temporary directory.
 */
class ServerProcessTest
{
    /** A small JVM whose direct-memory limit holds a 16 MiB RAM tier. */
    private static final List<String> SMALL = List.of("-Xmx128m", "-XX:MaxDirectMemorySize=192m");
    private static final Pattern TEXT_LOG_LINE = Pattern.compile(
        "\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z INFO  \\[.+] .+ - offcache L2 server listening on .*");

    @TempDir
    Path tmp;

    private ChildServer run(final List<String> jvmOptions, final String... args) throws IOException
    {
        return ChildServer.launch(tmp, jvmOptions, args);
    }

    private List<Path> temporarySsdDirs() throws IOException
    {
        try (Stream<Path> paths = Files.list(tmp))
        {
            return paths.filter((path) -> path.getFileName().toString().startsWith("offcache-ssd-")).toList();
        }
    }

    /** Exit 2, exactly one line from the program, no stack trace, nothing left behind; returns the line. */
    private String refusedStart(final ChildServer child) throws Exception
    {
        assertEquals(2, child.exit(), () -> String.join("\n", child.output()));
        final List<String> output = child.output();
        final List<String> ours = output.stream().filter((line) -> line.startsWith("offcache-server: ")).toList();
        assertEquals(1, ours.size(), () -> String.join("\n", output));
        assertFalse(output.stream().anyMatch((line) -> line.contains("Exception") || line.startsWith("\tat ")),
            () -> String.join("\n", output));
        assertEquals(List.of(), temporarySsdDirs());
        return ours.get(0);
    }

    @Test
    void portInUseIsOneLineNamingTheFlagAndTheAddress() throws Exception
    {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1")))
        {
            final String address = "127.0.0.1:" + taken.getLocalPort();
            final String line = refusedStart(run(SMALL, "--listen", address, "--ram-mb", "16"));
            assertEquals("offcache-server: --listen (env OFFCACHE_LISTEN): cannot listen on " + address +
                ": address already in use: stop the process listening there or choose another port (port 0 picks " +
                "a free one)", line);
        }
    }

    @Test
    void unwritableDiskPathIsRefusedByName() throws Exception
    {
        // root may write anywhere, so a path under a regular file is what no user can create
        final Path file = Files.writeString(tmp.resolve("a-file"), "x");
        final Path disk = file.resolve("ssd");
        final String line = refusedStart(run(SMALL, "--listen", "127.0.0.1:0", "--ram-mb", "16",
            "--disk-path", disk.toString()));
        assertTrue(line.startsWith("offcache-server: --disk-path (env OFFCACHE_DISK_PATH): " + disk +
            " is not a writable directory ("), line);
        assertTrue(line.endsWith("): create it writable for this user or choose another --disk-path"), line);
        assertFalse(Files.exists(disk));
    }

    @Test
    void ramTierAboveTheDirectMemoryLimitIsRefusedBeforeAllocating() throws Exception
    {
        final String line = refusedStart(run(List.of("-Xmx128m", "-XX:MaxDirectMemorySize=64m"),
            "--listen", "127.0.0.1:0", "--ram-mb", "128"));
        assertTrue(line.startsWith("offcache-server: --ram-mb (env OFFCACHE_RAM_MB): 128 needs 225 MiB of direct " +
            "memory"), line);
        assertTrue(line.contains("but this JVM allows 64 MiB"), line);
        assertTrue(line.contains("raise -XX:MaxDirectMemorySize in OFFCACHE_JAVA_OPTS"), line);
    }

    @Test
    void ramTierAboveThePhysicalMemoryIsRefusedBeforeAllocating() throws Exception
    {
        final MachineMemory machine = new MachineMemory();
        final long limit = machine.cgroupLimitBytes() >= 0 ?
            Math.min(machine.cgroupLimitBytes(), machine.physicalBytes()) : machine.physicalBytes();
        final long limitMb = (limit + (1 << 20) - 1) >> 20;
        final long ramMb = limitMb + 1024;
        // a direct-memory limit that holds it, so only the machine's memory refuses it (as under the launcher, which
        // sets the limit to the RAM tier + 512 MiB)
        final String line = refusedStart(run(List.of("-Xmx128m", "-XX:MaxDirectMemorySize=" + (ramMb + 2048) + "m"),
            "--listen", "127.0.0.1:0", "--ram-mb", Long.toString(ramMb)));
        assertTrue(line.startsWith("offcache-server: --ram-mb (env OFFCACHE_RAM_MB): " + ramMb + " needs "), line);
        assertTrue(line.contains(" MiB of memory (RAM slab and spill slots "), line);
        assertTrue(line.contains("but this machine has " + limitMb + " MiB of physical memory") ||
            line.contains("but this container's memory limit (cgroup) is " + limitMb + " MiB"), line);
        assertTrue(line.endsWith(": lower --ram-mb"), line);
    }

    @Test
    void sigtermDuringStartupPrintsALineAndRemovesTheTemporaryDirectory() throws Exception
    {
        // the RAM tier is zeroed as it is allocated (~75 MB/s on the shared build machine, seconds at any rate)
        final ChildServer child = run(List.of("-Xmx128m", "-XX:MaxDirectMemorySize=1g"), "--listen", "127.0.0.1:0",
            "--ram-mb", "512");
        child.await((line) -> line.contains("allocating the RAM tier: 512 MiB"), 60_000);
        assertEquals(1, temporarySsdDirs().size(), "the temporary SSD directory exists while the tier is allocated");
        child.terminate(); // SIGTERM
        assertEquals(143, child.exit(), () -> String.join("\n", child.output()));
        final List<String> output = child.output();
        assertFalse(output.stream().anyMatch((line) -> line.contains("listening on")), () -> String.join("\n",
            output));
        assertEquals(1, output.stream().filter((line) -> line.startsWith("offcache-server: stopped during start-up, " +
            "before serving; removed the temporary SSD directory " + tmp.resolve("offcache-ssd-"))).count(),
            () -> String.join("\n", output));
        assertEquals(List.of(), temporarySsdDirs());
    }

    @Test
    void aComponentRefusingItsSettingIsOneLineNamingTheFlag() throws Exception
    {
        final String line = refusedStart(run(SMALL, "--listen", "127.0.0.1:0", "--ram-mb", "16",
            "--ssd-read-threads", "0"));
        assertEquals("offcache-server: Invalid value for --ssd-read-threads (env OFFCACHE_SSD_READ_THREADS): " +
            "ssdReadThreads must be >= 1, was 0", line);
    }

    @Test
    void sigtermReportsNotReadyWhileServingThenExits143() throws Exception
    {
        final ChildServer child = run(SMALL, "--listen", "127.0.0.1:0", "--ram-mb", "16",
            "--shutdown-unready-seconds", "3");
        final int port = child.port();
        final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
        final URI ready = URI.create("http://127.0.0.1:" + port + "/ready");
        assertEquals(200, client.send(HttpRequest.newBuilder(ready).build(),
            HttpResponse.BodyHandlers.ofString()).statusCode());

        child.terminate(); // SIGTERM
        HttpResponse<String> answer = null;
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline)
        {
            answer = client.send(HttpRequest.newBuilder(ready).build(), HttpResponse.BodyHandlers.ofString());
            if (answer.statusCode() != 200)
            {
                break;
            }
            Thread.onSpinWait();
        }
        assertEquals(503, answer.statusCode(), "/ready should turn 503 before the listener closes");
        final JsonNode body = new ObjectMapper().readTree(answer.body());
        assertEquals("not ready", body.get("status").asText(), answer.body());
        // a new connection (a new client) in the unready window is still accepted, and a read is still served
        final HttpClient fresh = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
        final HttpResponse<String> read = fresh.send(HttpRequest.newBuilder(
            URI.create("http://127.0.0.1:" + port + "/obj/" + SampleObjects.HELLO))
            .header("Authorization", "Bearer " + child.apiKey()).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, read.statusCode(), read.body());
        assertEquals(Files.readString(tmp.resolve("offcache-origin").resolve(SampleObjects.HELLO)), read.body());

        assertEquals(143, child.exit(), () -> String.join("\n", child.output()));
        assertEquals(List.of(), temporarySsdDirs());
        // the default log format: a UTC timestamp first
        assertTrue(child.output().stream().anyMatch((line) -> TEXT_LOG_LINE.matcher(line).matches()),
            () -> String.join("\n", child.output()));
    }

    @Test
    void jsonLogsAreOneObjectPerLine() throws Exception
    {
        final ChildServer child = run(SMALL, "--listen", "127.0.0.1:0", "--ram-mb", "16", "--log-format", "json");
        child.port();
        child.terminate();
        assertEquals(143, child.exit(), () -> String.join("\n", child.output()));
        final ObjectMapper json = new ObjectMapper();
        int logLines = 0;
        boolean listening = false;
        for (final String line : child.output())
        {
            if (line.startsWith("{"))
            {
                final JsonNode event = json.readTree(line);
                assertTrue(event.get("timestamp").asLong() > 0, line);
                assertTrue(event.hasNonNull("level") && event.hasNonNull("loggerName"), line);
                listening |= event.get("message").asText().startsWith("offcache L2 server listening on");
                logLines++;
            }
        }
        assertTrue(listening, () -> String.join("\n", child.output()));
        assertTrue(logLines >= 2, "start and stop are logged");
        assertFalse(child.output().stream().anyMatch((line) -> TEXT_LOG_LINE.matcher(line).matches()),
            "no text log lines");
    }
}
