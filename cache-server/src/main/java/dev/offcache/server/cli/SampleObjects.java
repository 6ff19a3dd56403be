package dev.offcache.server.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;

/** Creates the embedded default's origin directory with a few sample objects when it is missing or empty. */
final class SampleObjects
{
    static final String HELLO = "samples/hello.txt";
    static final String RANDOM = "samples/random-4mib.bin";
    static final String CSV = "samples/numbers.csv";

    private SampleObjects()
    {
    }

    static void createIfEmpty(final Path dir) throws IOException
    {
        Files.createDirectories(dir);
        try (var entries = Files.list(dir))
        {
            if (entries.findAny().isPresent())
            {
                return;
            }
        }
        Files.createDirectories(dir.resolve("samples"));
        Files.writeString(dir.resolve(HELLO), "Hello from the offcache L2 server.\n", StandardCharsets.UTF_8);
        final byte[] random = new byte[4 * 1024 * 1024];
        new Random(42).nextBytes(random);
        Files.write(dir.resolve(RANDOM), random);
        final StringBuilder csv = new StringBuilder("n,square\n");
        for (int i = 0; i < 10_000; i++)
        {
            csv.append(i).append(',').append((long) i * i).append('\n');
        }
        Files.writeString(dir.resolve(CSV), csv, StandardCharsets.UTF_8);
    }
}
