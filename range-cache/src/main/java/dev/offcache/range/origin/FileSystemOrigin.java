package dev.offcache.range.origin;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongConsumer;
import java.util.function.Supplier;
import java.util.stream.Stream;

import dev.offcache.range.store.FetchClass;

/**
 * An origin over a local directory: each key is a file below the root, read with positional
 * {@link FileChannel#read(ByteBuffer, long)} calls on a small thread pool the origin owns.
 *
 * <p>Memory: reads go straight into the caller's (direct) buffer; the origin holds no buffers of its own.
 * The version of an object (for conditional reads) is its last-modified time and size, and its entity tag is that
 * version in quotes ({@code "18f0c2a1b40-400000"}: with a dash, so no client mistakes it for an MD5 of the bytes).
 */
public final class FileSystemOrigin extends RangedGetOrigin
{
    /** Default file-I/O threads: enough blocking positional reads in flight to keep a local SSD's queue busy. */
    public static final int DEFAULT_IO_THREADS = 16;
    /** Fewest file-I/O threads. */
    public static final int MIN_IO_THREADS = 1;

    private static final AtomicInteger POOL_ID = new AtomicInteger();

    private final Path root;
    private final String namespace;
    private final ExecutorService ioThreads;

    /**
     * Creates an instance.
     *
     * @param root      the directory holding the objects; it must exist.
     * @param ioThreads the number of threads doing blocking file I/O.
     */
    public FileSystemOrigin(final Path root, final int ioThreads)
    {
        if (ioThreads < MIN_IO_THREADS)
        {
            throw new IllegalArgumentException("ioThreads must be >= " + MIN_IO_THREADS + ": " + ioThreads);
        }
        try
        {
            this.root = root.toRealPath();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("origin root does not exist: " + root, ex);
        }
        if (!Files.isDirectory(this.root))
        {
            throw new IllegalArgumentException("origin root is not a directory: " + root);
        }
        this.namespace = "file:" + this.root;
        final int poolId = POOL_ID.incrementAndGet();
        final AtomicInteger threadId = new AtomicInteger();
        this.ioThreads = Executors.newFixedThreadPool(ioThreads, (runnable) ->
        {
            final Thread thread = new Thread(
                runnable, "offcache-file-origin-" + poolId + "-" + threadId.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
    }

    /**
     * The real path of the root directory.
     *
     * @return the root.
     */
    public Path root()
    {
        return root;
    }

    @Override
    public String namespace()
    {
        return namespace;
    }

    @Override
    public CompletableFuture<Long> size(final String key)
    {
        return supply(() ->
        {
            try
            {
                final BasicFileAttributes attributes = Files.readAttributes(fileOf(key), BasicFileAttributes.class);
                if (!attributes.isRegularFile())
                {
                    throw new ObjectNotFoundException(namespace, key);
                }
                return attributes.size();
            }
            catch (final NoSuchFileException ex)
            {
                throw new ObjectNotFoundException(namespace, key);
            }
            catch (final IOException ex)
            {
                throw new OriginException("HEAD of '" + key + "' in " + namespace + " failed", ex);
            }
        });
    }

    @Override
    public CompletableFuture<ObjectInfo> stat(final String key)
    {
        return supply(() ->
        {
            try
            {
                final BasicFileAttributes attributes = Files.readAttributes(fileOf(key), BasicFileAttributes.class);
                if (!attributes.isRegularFile())
                {
                    throw new ObjectNotFoundException(namespace, key);
                }
                return infoOf(key, attributes);
            }
            catch (final NoSuchFileException ex)
            {
                throw new ObjectNotFoundException(namespace, key);
            }
            catch (final IOException ex)
            {
                throw new OriginException("HEAD of '" + key + "' in " + namespace + " failed", ex);
            }
        });
    }

    /** A positional read; the size is the file's length, read from the open channel: it costs no extra call. */
    @Override
    protected CompletableFuture<Integer> get(
        final String key, final long offset, final ByteBuffer destination, final String ifMatch,
        final LongConsumer objectSize)
    {
        return supply(() -> readNow(key, offset, destination, ifMatch, objectSize));
    }

    @Override
    public boolean readsBlocks()
    {
        return true;
    }

    /** Positional reads straight into each destination, each told filled as soon as it is. */
    @Override
    public CompletableFuture<Integer> readBlocks(
        final String key, final long offset, final ByteBuffer[] destinations, final FetchClass fetchClass,
        final LongConsumer objectSize, final BlockProgress progress)
    {
        return supply(() -> readBlocksNow(key, offset, destinations, objectSize, progress));
    }

    @Override
    public CompletableFuture<String> version(final String key)
    {
        return supply(() ->
        {
            final Path file = fileOf(key);
            try (FileChannel channel = open(file, key))
            {
                return versionOf(file, channel);
            }
            catch (final IOException ex)
            {
                throw new OriginException("version of '" + key + "' in " + namespace + " failed", ex);
            }
        });
    }

    @Override
    public CompletableFuture<Void> put(final String key, final ByteBuffer source)
    {
        final ByteBuffer bytes = source.duplicate();
        return supply(() ->
        {
            final Path path = pathOf(key);
            try
            {
                Files.createDirectories(path.getParent());
                if (!path.getParent().toRealPath().startsWith(root))
                {
                    throw new IllegalArgumentException("object key '" + key + "' leaves the origin root " + root +
                        " through a symbolic link");
                }
                final Path temp = Files.createTempFile(path.getParent(), ".put-", ".tmp");
                try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.WRITE))
                {
                    while (bytes.hasRemaining())
                    {
                        channel.write(bytes);
                    }
                    channel.force(true);
                }
                try
                {
                    Files.move(temp, path, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                }
                catch (final AtomicMoveNotSupportedException ex)
                {
                    Files.move(temp, path, StandardCopyOption.REPLACE_EXISTING);
                }
                return null;
            }
            catch (final IOException ex)
            {
                throw new OriginException("PUT of '" + key + "' in " + namespace + " failed", ex);
            }
        });
    }

    @Override
    public CompletableFuture<Void> delete(final String key)
    {
        return supply(() ->
        {
            try
            {
                Files.deleteIfExists(pathOf(key));
                return null;
            }
            catch (final IOException ex)
            {
                throw new OriginException("DELETE of '" + key + "' in " + namespace + " failed", ex);
            }
        });
    }

    @Override
    public CompletableFuture<List<String>> list(final String prefix)
    {
        return supply(() -> new ArrayList<>(walk(prefix).keySet()));
    }

    /** Walks only the directory the prefix names (not the whole root), reading each file's attributes once. */
    @Override
    public CompletableFuture<ListPage> listPage(final ListPage.Request request)
    {
        return supply(() ->
        {
            final Map<String, ObjectInfo> infos = walk(request.prefix());
            final ListPages.Selection page = ListPages.select(new ArrayList<>(infos.keySet()), request);
            final List<ObjectInfo> objects = new ArrayList<>(page.objectKeys().size());
            for (final String key : page.objectKeys())
            {
                objects.add(infos.get(key));
            }
            return new ListPage(objects, page.commonPrefixes(), page.nextContinuationToken());
        });
    }

    @Override
    public CompletableFuture<Void> probe()
    {
        return supply(() ->
        {
            if (!Files.isDirectory(root))
            {
                throw new ObjectNotFoundException(namespace, "");
            }
            return null;
        });
    }

    /**
     * Every regular file under a prefix (inside the root, no temporary put files), sorted by key. Only the deepest
     * directory the prefix names is walked.
     */
    private Map<String, ObjectInfo> walk(final String prefix)
    {
        final int slash = prefix.lastIndexOf('/');
        final Path start = slash < 0 ? root : root.resolve(prefix.substring(0, slash)).normalize();
        final List<ObjectInfo> found = new ArrayList<>();
        if (start.startsWith(root) && Files.isDirectory(start))
        {
            try (Stream<Path> files = Files.walk(start))
            {
                files.forEach((path) ->
                {
                    final String key = root.relativize(path).toString()
                        .replace(path.getFileSystem().getSeparator(), "/");
                    if (!key.startsWith(prefix) || path.getFileName().toString().startsWith(".put-") ||
                        !isInsideRoot(path))
                    {
                        return;
                    }
                    try
                    {
                        final BasicFileAttributes attributes = Files.readAttributes(path, BasicFileAttributes.class);
                        if (attributes.isRegularFile())
                        {
                            found.add(infoOf(key, attributes));
                        }
                    }
                    catch (final IOException ex)
                    {
                        // deleted while walking: not listed
                    }
                });
            }
            catch (final IOException | UncheckedIOException ex)
            {
                throw new OriginException("LIST of '" + prefix + "' in " + namespace + " failed", ex);
            }
        }
        found.sort((a, b) -> a.key().compareTo(b.key()));
        final Map<String, ObjectInfo> byKey = new LinkedHashMap<>();
        for (final ObjectInfo info : found)
        {
            byKey.put(info.key(), info);
        }
        return byKey;
    }

    private static ObjectInfo infoOf(final String key, final BasicFileAttributes attributes)
    {
        final long modified = attributes.lastModifiedTime().toMillis();
        return new ObjectInfo(key, attributes.size(), Math.max(0, modified),
            "\"" + versionOf(modified, attributes.size()) + "\"");
    }

    @Override
    public void close()
    {
        // Not shutdownNow(): a dropped task would leave its future incomplete forever, stranding the caller's
        // waiters and the staging buffer that the read targets. Queued reads are short positional reads; let them
        // finish, and refuse new ones (supply() turns the rejection into a failed future).
        ioThreads.shutdown();
    }

    private int readNow(
        final String key, final long offset, final ByteBuffer destination, final String ifMatch,
        final LongConsumer objectSize)
    {
        if (offset < 0)
        {
            throw new IllegalArgumentException("negative offset " + offset + " for '" + key + "'");
        }
        final Path file = fileOf(key);
        try (FileChannel channel = open(file, key))
        {
            if (ifMatch != null && !ifMatch.equals(versionOf(file, channel)))
            {
                throw new PreconditionFailedException(key, ifMatch);
            }
            if (null != objectSize)
            {
                objectSize.accept(channel.size());
            }
            return readFully(channel, destination.duplicate(), offset);
        }
        catch (final IOException ex)
        {
            throw new OriginException("GET of '" + key + "' at " + offset + " in " + namespace + " failed", ex);
        }
    }

    private int readBlocksNow(
        final String key, final long offset, final ByteBuffer[] destinations, final LongConsumer objectSize,
        final BlockProgress progress)
    {
        if (offset < 0)
        {
            throw new IllegalArgumentException("negative offset " + offset + " for '" + key + "'");
        }
        try (FileChannel channel = open(fileOf(key), key))
        {
            if (null != objectSize)
            {
                objectSize.accept(channel.size());
            }
            long total = 0;
            for (int i = 0; i < destinations.length; i++)
            {
                final int asked = destinations[i].remaining();
                final int bytes = readFully(channel, destinations[i].duplicate(), offset + total);
                total += bytes;
                if (bytes > 0)
                {
                    progress.filled(i, bytes);
                }
                if (bytes < asked)
                {
                    break;
                }
            }
            return (int) total;
        }
        catch (final IOException ex)
        {
            throw new OriginException("GET of '" + key + "' at " + offset + " in " + namespace + " failed", ex);
        }
    }

    /** Positional reads into {@code target} from {@code position} until it is full or the file ends: bytes read. */
    private static int readFully(final FileChannel channel, final ByteBuffer target, final long position)
        throws IOException
    {
        int total = 0;
        while (target.hasRemaining())
        {
            final int read = channel.read(target, position + total);
            if (read < 0)
            {
                break;
            }
            total += read;
        }
        return total;
    }

    private FileChannel open(final Path file, final String key) throws IOException
    {
        // Only a regular file is an object (as only regular files are listed and sized): a directory opens for
        // reading on Linux, with the directory's size and reads that fail after a 200 went out, and opening a FIFO
        // waits for a writer.
        if (!Files.isRegularFile(file))
        {
            throw new ObjectNotFoundException(namespace, key);
        }
        try
        {
            return FileChannel.open(file, StandardOpenOption.READ);
        }
        catch (final NoSuchFileException ex)
        {
            throw new ObjectNotFoundException(namespace, key);
        }
    }

    /**
     * The file a key reads: its real path, which must lie below the root. Checking the key's text is not enough,
     * since a symbolic link inside the root may point anywhere the process can read; such a key is reported as
     * missing. (A link swapped between this check and the open needs write access to the root itself.)
     */
    private Path fileOf(final String key)
    {
        final Path path = pathOf(key);
        try
        {
            final Path real = path.toRealPath();
            if (!real.startsWith(root))
            {
                throw new ObjectNotFoundException(namespace, key);
            }
            return real;
        }
        catch (final NoSuchFileException ex)
        {
            throw new ObjectNotFoundException(namespace, key);
        }
        catch (final IOException ex)
        {
            throw new OriginException("resolving '" + key + "' in " + namespace + " failed", ex);
        }
    }

    private boolean isInsideRoot(final Path path)
    {
        try
        {
            return path.toRealPath().startsWith(root);
        }
        catch (final IOException ex)
        {
            return false;
        }
    }

    private static String versionOf(final Path path, final FileChannel channel) throws IOException
    {
        return versionOf(Files.getLastModifiedTime(path).toMillis(), channel.size());
    }

    private static String versionOf(final long modifiedMillis, final long size)
    {
        return Long.toHexString(Math.max(0, modifiedMillis)) + "-" + Long.toHexString(size);
    }

    private Path pathOf(final String key)
    {
        final Path path = root.resolve(ObjectKeys.validate(key)).normalize();
        if (!path.startsWith(root))
        {
            throw new IllegalArgumentException("object key escapes the origin root: '" + key + "'");
        }
        return path;
    }

    private <T> CompletableFuture<T> supply(final Supplier<T> task)
    {
        try
        {
            return CompletableFuture.supplyAsync(task, ioThreads);
        }
        catch (final RuntimeException ex)
        {
            return CompletableFuture.failedFuture(new OriginException("origin " + namespace + " is closed", ex));
        }
    }
}
