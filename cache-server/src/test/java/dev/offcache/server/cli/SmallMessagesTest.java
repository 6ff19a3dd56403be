package dev.offcache.server.cli;

import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The small messages a new user reads: an error blamed on what set the value, a config file named once, one version
 * everywhere, printed lines that run as printed, a 404 that names the served buckets, and {@code --help} by topic.
 */
class SmallMessagesTest
{
    @TempDir
    Path tmp;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private CommandLine commandLine(final Map<String, String> env, final Path configFile)
    {
        final CommandLine commandLine = OffcacheServerCommand.commandLine(env, configFile);
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(err, true));
        return commandLine;
    }

    @Test
    void aFlagsBadValueIsBlamedOnTheFlagEvenWithItsVariableSet()
    {
        final Map<String, String> env = Map.of("OFFCACHE_API_KEYS", "a-good-key-from-the-environment");
        assertEquals(2, commandLine(env, null).execute("--listen", "127.0.0.1:0", "--origin-dir", tmp.toString(),
            "--api-keys", "short"));
        assertTrue(err.toString().startsWith("offcache-server: Invalid value for --api-keys (env OFFCACHE_API_KEYS): "),
            err.toString());
        assertFalse(err.toString().contains("set by environment variable"), err.toString());

        // the variable alone is still named as the source
        err.getBuffer().setLength(0);
        assertEquals(2, commandLine(Map.of("OFFCACHE_API_KEYS", "short"), null).execute("--listen", "127.0.0.1:0",
            "--origin-dir", tmp.toString()));
        assertTrue(err.toString().contains("(set by environment variable OFFCACHE_API_KEYS)"), err.toString());
    }

    @Test
    void aMissingConfigFileIsNamedOnce()
    {
        final Path missing = tmp.resolve("missing.properties");
        assertEquals(2, commandLine(Map.of(), missing).execute("--config", missing.toString()));
        final String message = err.toString();
        assertEquals(1, message.split(Pattern.quote(missing.toString()), -1).length - 1, message);
        assertTrue(message.contains("cannot read " + missing + ": no such file"), message);
    }

    @Test
    void versionIsTheOneMetricsShowsAndThePrintedCurlLinesRunAsPrinted() throws Exception
    {
        final CommandLine version = commandLine(Map.of(), null);
        assertEquals(0, version.execute("--version"));
        final String printed = out.toString().trim();
        out.getBuffer().setLength(0);

        final CommandLine commandLine = commandLine(Map.of(), null);
        commandLine.parseArgs("--listen", "127.0.0.1:0", "--ram-mb", "16", "--memory-budget-mb", "16");
        try (ServerProgram program = commandLine.<OffcacheServerCommand>getCommand().start())
        {
            final String metrics = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(
                "http://127.0.0.1:" + program.server().address().getPort() + "/metrics"))
                .header("Authorization", "Bearer " + program.apiKey()).build(),
                HttpResponse.BodyHandlers.ofString()).body();
            final Matcher build = Pattern.compile("offcache_build_info\\{[^}]*version=\"([^\"]+)\"").matcher(metrics);
            assertTrue(build.find(), metrics);
            assertEquals("offcache-server " + build.group(1), printed);

            // the printed curl lines, pasted into a shell: the first writes the body (curl shows no progress meter
            // when the body goes to a terminal); the second writes its -w line only (its body goes to /dev/null, so
            // without -s curl draws its progress meter on the terminal)
            final List<String> curls = new ArrayList<>();
            for (final String line : out.toString().split("\n"))
            {
                if (line.trim().startsWith("curl "))
                {
                    curls.add(line.trim());
                }
            }
            assertEquals(2, curls.size(), out.toString());
            final byte[] hello = Files.readAllBytes(Path.of(System.getProperty("java.io.tmpdir"), "offcache-origin",
                SampleObjects.HELLO));
            assertEquals(new String(hello, 0, Math.min(100, hello.length), StandardCharsets.ISO_8859_1),
                shell(curls.get(0) + " 2>/dev/null"));
            final long size = Files.size(Path.of(System.getProperty("java.io.tmpdir"), "offcache-origin",
                SampleObjects.RANDOM));
            assertEquals("200 " + size + "\n", shell(curls.get(1)), "no progress meter: -s");
        }
    }

    /** Runs a line with {@code sh -c}, stdout and stderr together, as a terminal shows them. */
    private static String shell(final String line) throws Exception
    {
        final Process process = new ProcessBuilder("sh", "-c", line).redirectErrorStream(true).start();
        final String output;
        try (InputStream in = process.getInputStream())
        {
            output = new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
        }
        assertTrue(process.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, process.exitValue(), output);
        return output;
    }

    @Test
    void aKeyOfNoServedBucketNamesTheServedBuckets() throws Exception
    {
        for (final String bucket : List.of("lake", "logs"))
        {
            Files.writeString(Files.createDirectories(tmp.resolve(bucket)).resolve("a.txt"), bucket);
        }
        final CommandLine commandLine = commandLine(Map.of(), null);
        commandLine.parseArgs("--listen", "127.0.0.1:0", "--bucket-dirs", "lake=" + tmp.resolve("lake") + ",logs=" +
            tmp.resolve("logs"), "--disable-auth", "--ram-mb", "16", "--memory-budget-mb", "16", "--disk-path",
            tmp.resolve("ssd").toString());
        try (ServerProgram program = commandLine.<OffcacheServerCommand>getCommand().start())
        {
            final Curl.Result wrong = Curl.run("http://127.0.0.1:" + program.server().address().getPort() +
                "/obj/lakes/a.txt");
            assertEquals(404, wrong.status(), wrong.output());
            assertTrue(wrong.output().contains("the served buckets (lake, logs; keys are BUCKET/KEY)"),
                wrong.output());
            assertFalse(wrong.output().contains("buckets:"), wrong.output());
        }
    }

    @Test
    void helpListsEveryOptionInExactlyOneSection()
    {
        final CommandLine commandLine = commandLine(Map.of(), null);
        assertEquals(0, commandLine.execute("--help"));
        final String help = out.toString();
        final Set<String> sectioned = new HashSet<>();
        int at = -1;
        for (final Map.Entry<String, List<String>> section : OffcacheServerCommand.HELP_SECTIONS.entrySet())
        {
            final int heading = help.indexOf("\n" + section.getKey() + ":\n");
            assertTrue(heading > at, () -> section.getKey() + " in order:\n" + help);
            at = heading;
            for (final String option : section.getValue())
            {
                assertTrue(sectioned.add(option), option + " is in two sections");
            }
        }
        final Set<String> options = new HashSet<>();
        for (final CommandLine.Model.OptionSpec option : commandLine.getCommandSpec().options())
        {
            options.add(option.longestName());
        }
        assertEquals(options, sectioned, "every option in one section, no section naming a missing one");
        assertTrue(help.startsWith("Usage: offcache-server [OPTIONS]"), help);
    }
}
