package dev.offcache.core.shuffle;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.CRC32C;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

import dev.offcache.core.region.MappedRegion;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * A partition larger than one 1 GiB mapping (a sparse file with a few marked bytes, so the test stays cheap on
 * disk): it opens, views on either side of the boundary read the right bytes, a view across it is refused; and
 * (opt-in) {@code verify()} checks the CRC32C across both mappings.
 */
class LargePartitionTest
{
    private static final long GIB = 1L << 30;
    private static final long DATA_LENGTH = GIB + 4096;

    @TempDir
    Path workDir;

    @Test
    void aPartitionBeyondOneMappingOpensAndServesViewsOnBothSides() throws IOException
    {
        final long liveBefore = MappedRegion.liveMappings();
        final ShufflePartitionStore store = new ShufflePartitionStore(workDir, PinSet.NONE);
        final PartitionId id = new PartitionId("big", 0, 0);
        writeSparsePartition(id, store.pathOf(id), false);
        try (MappedPartition partition = store.openPartition(id))
        {
            assertEquals(DATA_LENGTH, partition.length());
            final UnsafeBuffer view = new UnsafeBuffer(0, 0);
            partition.wrap(view, GIB - 8, 8);
            assertEquals(0x1122334455667788L, view.getLong(0, ByteOrder.BIG_ENDIAN));
            partition.wrap(view, GIB, 4096);
            assertEquals(0x99AABBCCDDEEFF00L, view.getLong(0, ByteOrder.BIG_ENDIAN));
            assertEquals(0, view.getLong(4088));
            assertThrows(IllegalArgumentException.class, () -> partition.wrap(view, GIB - 8, 16));
            assertThrows(IndexOutOfBoundsException.class, () -> partition.wrap(view, DATA_LENGTH - 8, 16));
            assertEquals(liveBefore + 2, MappedRegion.liveMappings(), "two 1 GiB mappings");
        }
        assertEquals(liveBefore, MappedRegion.liveMappings());
    }

    /**
     * Reads 1 GiB: several seconds on a loaded machine, so opt-in ({@code -Doffcache.test.large=true}).
     */
    @Test
    @EnabledIfSystemProperty(named = "offcache.test.large", matches = "true")
    void verifyChecksTheCrcAcrossBothMappings() throws IOException
    {
        final ShufflePartitionStore store = new ShufflePartitionStore(workDir, PinSet.NONE);
        final PartitionId id = new PartitionId("big", 0, 1);
        final Path path = store.pathOf(id);
        writeSparsePartition(id, path, true);
        try (MappedPartition partition = store.openPartition(id))
        {
            partition.verify();
        }
        try (RandomAccessFile file = new RandomAccessFile(path.toFile(), "rw"))
        {
            file.seek(GIB + 100);
            file.write(1);
        }
        try (MappedPartition partition = store.openPartition(id))
        {
            assertThrows(CorruptPartitionException.class, partition::verify);
        }
    }

    private static void writeSparsePartition(final PartitionId id, final Path path, final boolean realCrc)
        throws IOException
    {
        Files.createDirectories(path.getParent());
        final CRC32C crc = new CRC32C();
        try (RandomAccessFile file = new RandomAccessFile(path.toFile(), "rw"))
        {
            file.setLength(DATA_LENGTH + PartitionFile.footerLength(id));
            file.seek(GIB - 8);
            file.writeLong(0x1122334455667788L);
            file.seek(GIB);
            file.writeLong(0x99AABBCCDDEEFF00L);
            if (realCrc)
            {
                final byte[] zeros = new byte[1 << 20];
                for (long offset = 0; offset < DATA_LENGTH; )
                {
                    final int chunk = (int) Math.min(zeros.length, DATA_LENGTH - offset);
                    if (offset == GIB - zeros.length || offset == GIB)
                    {
                        final byte[] marked = new byte[chunk];
                        final ByteBuffer bytes = ByteBuffer.wrap(marked);
                        if (offset == GIB)
                        {
                            bytes.putLong(0, 0x99AABBCCDDEEFF00L);
                        }
                        else
                        {
                            bytes.putLong(chunk - 8, 0x1122334455667788L);
                        }
                        crc.update(marked);
                    }
                    else
                    {
                        crc.update(zeros, 0, chunk);
                    }
                    offset += chunk;
                }
            }
            final UnsafeBuffer footer = new UnsafeBuffer(new byte[PartitionFile.footerLength(id)]);
            PartitionFile.encodeFooter(footer, 0, id, DATA_LENGTH, (int) crc.getValue());
            file.seek(DATA_LENGTH);
            file.write(footer.byteArray());
        }
    }
}
