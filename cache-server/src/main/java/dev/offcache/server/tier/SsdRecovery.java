package dev.offcache.server.tier;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.stream.Stream;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What an {@link SsdTier} finds at open: checks the {@code FORMAT} file (an unknown layout wipes the tier), deletes
 * temporary files a crash left behind, and reads every block file's header, discarding damaged ones; the tier then
 * indexes what survived. Runs once, on the opening thread, before the tier is shared.
 */
final class SsdRecovery
{
    // the tier's log category: operators read recovery's lines under it
    private static final Logger LOG = LoggerFactory.getLogger(SsdTier.class);

    private final Path dir;
    private final Path blocksDir;
    private final TierCounters metrics;

    SsdRecovery(final Path dir, final Path blocksDir, final TierCounters metrics)
    {
        this.dir = dir;
        this.blocksDir = blocksDir;
        this.metrics = metrics;
    }

    /**
     * Brings the directory to the current layout and reads the block files' headers.
     *
     * @return the blocks found, in publication (sequence) order.
     * @throws IOException when the directory cannot be read or written.
     */
    List<SsdTier.Entry> scan() throws IOException
    {
        Files.createDirectories(dir);
        final Path format = dir.resolve("FORMAT");
        if (Files.exists(format))
        {
            final String line = Files.readString(format, StandardCharsets.UTF_8).trim();
            if (!SsdTier.FORMAT_LINE.equals(line) && !SsdTier.LEGACY_FORMAT_LINE.equals(line))
            {
                LOG.warn("SSD tier at {} has unknown format '{}', expected '{}': wiping it", dir, line,
                    SsdTier.FORMAT_LINE);
                metrics.ssdFormatWipes.increment();
                deleteTree(blocksDir);
            }
        }
        else if (Files.exists(blocksDir))
        {
            LOG.warn("SSD tier at {} has blocks but no FORMAT file: wiping it", dir);
            metrics.ssdFormatWipes.increment();
            deleteTree(blocksDir);
        }
        Files.createDirectories(blocksDir);
        Files.writeString(format, SsdTier.FORMAT_LINE + "\n", StandardCharsets.UTF_8);

        final List<SsdTier.Entry> found = new ArrayList<>();
        final ByteBuffer header = ByteBuffer.allocate(BlockFileFormat.HEADER_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
        try (Stream<Path> files = Files.walk(blocksDir, 2))
        {
            for (final Iterator<Path> it = files.iterator(); it.hasNext(); )
            {
                final Path file = it.next();
                final String fileName = file.getFileName().toString();
                if (fileName.endsWith(SsdTier.TEMP_SUFFIX))
                {
                    Files.deleteIfExists(file);
                    metrics.ssdTornWritesDiscarded.increment();
                }
                else if (fileName.endsWith(SsdTier.BLOCK_SUFFIX))
                {
                    final SsdTier.Entry entry = readEntry(file, header);
                    if (null != entry)
                    {
                        found.add(entry);
                    }
                }
            }
        }
        found.sort(Comparator.comparingLong(SsdTier.Entry::sequence));
        return found;
    }

    private SsdTier.Entry readEntry(final Path file, final ByteBuffer header) throws IOException
    {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ))
        {
            header.clear();
            while (header.hasRemaining() && channel.read(header) >= 0)
            {
                // reads until the header is full or the file ends
            }
            header.flip();
            final BlockFileFormat.Header decoded = BlockFileFormat.decode(header, channel.size());
            return new SsdTier.Entry(
                new SsdTier.BlockName(decoded.name(), decoded.blockIndex()), decoded.sequence(), decoded, file);
        }
        catch (final BlockFileFormat.BadHeaderException ex)
        {
            if (ex.problem() == BlockFileFormat.Problem.UNKNOWN_VERSION)
            {
                LOG.warn("wiping block file {} of an unknown format: {}", file, ex.getMessage());
                metrics.ssdFormatWipes.increment();
            }
            else
            {
                LOG.warn("discarding damaged block file {}: {}", file, ex.getMessage());
                metrics.ssdCorruptBlocks.increment();
            }
            Files.deleteIfExists(file);
            return null;
        }
    }

    private static void deleteTree(final Path root) throws IOException
    {
        if (!Files.exists(root))
        {
            return;
        }
        try (Stream<Path> paths = Files.walk(root))
        {
            for (final Iterator<Path> it = paths.sorted(Comparator.reverseOrder()).iterator(); it.hasNext(); )
            {
                Files.deleteIfExists(it.next());
            }
        }
    }
}
