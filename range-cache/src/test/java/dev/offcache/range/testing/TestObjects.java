package dev.offcache.range.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;

/**
 * Writes objects of random bytes into a directory for a local origin to serve.
 */
public final class TestObjects
{
    private TestObjects()
    {
    }

    public static byte[] write(final Path root, final String key, final int size, final long seed)
    {
        final byte[] bytes = new byte[size];
        new Random(seed).nextBytes(bytes);
        try
        {
            final Path path = root.resolve(key);
            Files.createDirectories(path.getParent());
            Files.write(path, bytes);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
        return bytes;
    }
}
