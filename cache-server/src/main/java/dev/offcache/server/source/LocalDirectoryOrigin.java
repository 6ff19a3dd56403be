package dev.offcache.server.source;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * INTERIM: an {@link Origin} over a local directory (the embedded default's origin). Keys are relative paths;
 * a key that would resolve outside the root is refused even if it slipped past key validation.
 */
public final class LocalDirectoryOrigin implements Origin
{
    private final Path root;

    /**
     * Serves a directory.
     *
     * @param root the directory; must exist.
     */
    public LocalDirectoryOrigin(final Path root)
    {
        this.root = root.toAbsolutePath().normalize();
        if (!Files.isDirectory(this.root))
        {
            throw new IllegalArgumentException("origin directory does not exist: " + this.root);
        }
    }

    @Override
    public String namespace()
    {
        return "file:" + root;
    }

    @Override
    public long size(final String key) throws IOException
    {
        final Path file = resolve(key);
        if (!Files.isRegularFile(file))
        {
            throw new ObjectNotFoundException(key);
        }
        return Files.size(file);
    }

    @Override
    public void read(final String key, final long position, final ByteBuffer target) throws IOException
    {
        try (FileChannel channel = FileChannel.open(resolve(key), StandardOpenOption.READ))
        {
            long at = position;
            while (target.hasRemaining())
            {
                final int read = channel.read(target, at);
                if (read < 0)
                {
                    throw new EOFException("origin object " + key + " ended at " + at);
                }
                at += read;
            }
        }
        catch (final NoSuchFileException ex)
        {
            throw new ObjectNotFoundException(key);
        }
    }

    private Path resolve(final String key)
    {
        final Path file = root.resolve(key).normalize();
        if (!file.startsWith(root) || file.equals(root))
        {
            throw new ObjectNotFoundException(key);
        }
        return file;
    }
}
