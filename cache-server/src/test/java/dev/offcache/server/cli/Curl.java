package dev.offcache.server.cli;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The {@code curl} command run as a user runs it: its exit code (18 for a body cut short), the status line and
 * headers it printed ({@code -i}/{@code -I}) and the body. Tests use it so that what a shell user sees is asserted.
 */
final class Curl
{
    private Curl()
    {
    }

    /**
     * What one curl run showed.
     *
     * @param exit    curl's exit code.
     * @param status  the last HTTP status line's code, or -1.
     * @param output  everything curl printed on stdout (headers with {@code -i}, then the body).
     */
    record Result(int exit, int status, String output)
    {
        /**
         * A header's value (the last one printed), or null.
         *
         * @param name the header name, any case.
         * @return the value.
         */
        String header(final String name)
        {
            String value = null;
            for (final String line : output.split("\r\n"))
            {
                final int colon = line.indexOf(':');
                if (colon > 0 && line.substring(0, colon).trim().toLowerCase(Locale.ROOT)
                    .equals(name.toLowerCase(Locale.ROOT)))
                {
                    value = line.substring(colon + 1).trim();
                }
            }
            return value;
        }
    }

    /**
     * Runs {@code curl -s -S -i ARGS} (the status and headers on stdout) with a 60 s limit.
     *
     * @param args curl's arguments after {@code -s -S -i}.
     * @return the result.
     * @throws IOException          when curl cannot be started.
     * @throws InterruptedException when interrupted.
     */
    static Result run(final String... args) throws IOException, InterruptedException
    {
        final List<String> command = new ArrayList<>(List.of("curl", "-s", "-S", "-i", "--max-time", "30"));
        command.addAll(Arrays.asList(args));
        final Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        final String output;
        try (InputStream in = process.getInputStream())
        {
            output = new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
        }
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "curl finished: " + command);
        int status = -1;
        for (final String line : output.split("\r\n"))
        {
            if (line.startsWith("HTTP/"))
            {
                final String[] parts = line.split(" ");
                status = parts.length > 1 ? Integer.parseInt(parts[1]) : -1;
            }
        }
        return new Result(process.exitValue(), status, output);
    }
}
