package dev.offcache.transport;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import dev.offcache.core.region.MappedRegion;
import dev.offcache.core.shuffle.MappedPartition;
import dev.offcache.core.shuffle.PartitionId;
import dev.offcache.core.shuffle.PartitionWriter;
import dev.offcache.core.shuffle.PinSet;
import dev.offcache.core.shuffle.ShufflePartitionStore;
import dev.offcache.transport.client.PayloadClient;
import dev.offcache.transport.client.FetchException;
import dev.offcache.transport.media.AeronMedia;
import dev.offcache.transport.media.TransportChannels;
import dev.offcache.transport.server.PayloadServer;
import dev.offcache.transport.source.ShufflePartitionSource;
import dev.offcache.transport.wire.ErrorCode;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static dev.offcache.transport.TestSupport.assertAllBytes;
import static dev.offcache.transport.TestSupport.assertBytesEqual;
import static dev.offcache.transport.TestSupport.assertCode;
import static dev.offcache.transport.TestSupport.failure;
import static dev.offcache.transport.TestSupport.filledDirect;
import static dev.offcache.transport.TestSupport.join;
import static dev.offcache.transport.TestSupport.randomDirect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Shuffle partitions from a real {@link ShufflePartitionStore} on disk, served over IPC and UDP: bytes equal to
 * what was written (0 B to 64 MiB, and 32 at once); a byte flipped on disk gives CORRUPT and not one byte of the
 * partition; a deleted stage gives DELETED, an id never written NOT_FOUND, a malformed id BAD_REQUEST; another
 * partition's valid file in a partition's place, or a CRC32C other than the one the id expects, gives CORRUPT and
 * nothing else; every mapping is unmapped after the server closes.
 */
class ShufflePartitionSourceTest
{
    private static final Duration WAIT = Duration.ofSeconds(30);

    @TempDir
    Path workDir;

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void servesPartitionsIntactAndAnswersCorruptDeletedAndUnknownWithErrors(final boolean ipc) throws IOException
    {
        final long mappingsBefore = MappedRegion.liveMappings();
        final ShufflePartitionStore store = new ShufflePartitionStore(workDir, PinSet.NONE);
        final int[] sizes = {0, 100, 1024 * 1024, 64 * 1024 * 1024};
        final List<UnsafeBuffer> contents = new ArrayList<>();
        for (int p = 0; p < sizes.length; p++)
        {
            contents.add(write(store, new PartitionId("job-1", 3, p), sizes[p], p));
        }
        final UnsafeBuffer doomed = write(store, new PartitionId("job-1", 4, 0), 4096, 99);
        final PartitionId corruptId = new PartitionId("job-2", 1, 7);
        write(store, corruptId, 1024 * 1024, 7);
        flipByteOnDisk(store.pathOf(corruptId), 123_457);

        final ShufflePartitionSource source = new ShufflePartitionSource(store);
        final String channel = ipc ? TransportChannels.IPC :
            TransportChannels.udp("127.0.0.1", TestSupport.freeUdpPort());
        try (AeronMedia media = TestSupport.launchTestMedia();
            PayloadServer server = PayloadServer.launch(new PayloadServer.Context().aeron(media.aeron())
                .payloadSource(source).requestChannel(channel));
            PayloadClient client = PayloadClient.connect(new PayloadClient.Context().aeron(media.aeron())
                .requestChannel(channel)))
        {
            for (int p = 0; p < sizes.length; p++)
            {
                final UnsafeBuffer destination = filledDirect(sizes[p], (byte) 0);
                final String id = ShufflePartitionSource.idOf(new PartitionId("job-1", 3, p));
                assertEquals(sizes[p], join(client.fetch(id, destination, 0), WAIT), id);
                assertBytesEqual(contents.get(p), 0, destination, 0, sizes[p]);
            }

            final List<CompletableFuture<Long>> futures = new ArrayList<>();
            final List<UnsafeBuffer> destinations = new ArrayList<>();
            for (int i = 0; i < 32; i++)
            {
                final int p = i % 3;
                destinations.add(filledDirect(sizes[p], (byte) 0));
                futures.add(client.fetch(ShufflePartitionSource.idOf(new PartitionId("job-1", 3, p)),
                    destinations.get(i), 0));
            }
            for (int i = 0; i < 32; i++)
            {
                assertEquals(sizes[i % 3], join(futures.get(i), WAIT));
                assertBytesEqual(contents.get(i % 3), 0, destinations.get(i), 0, sizes[i % 3]);
            }

            final UnsafeBuffer untouched = filledDirect(1024 * 1024, (byte) 0x6B);
            final FetchException corrupt = failure(client.fetch(ShufflePartitionSource.idOf(corruptId), untouched,
                0), WAIT);
            assertCode(ErrorCode.CORRUPT, corrupt);
            assertTrue(corrupt.getMessage().contains("job-2/1/7"), corrupt.getMessage());
            assertAllBytes(untouched, 1024 * 1024, (byte) 0x6B);

            final String doomedId = ShufflePartitionSource.idOf(new PartitionId("job-1", 4, 0));
            final UnsafeBuffer destination = filledDirect(4096, (byte) 0);
            assertEquals(4096, join(client.fetch(doomedId, destination, 0), WAIT));
            assertBytesEqual(doomed, 0, destination, 0, 4096);
            assertTrue(store.deleteStage("job-1", 4));
            destination.setMemory(0, 4096, (byte) 0x6B);
            assertCode(ErrorCode.DELETED, failure(client.fetch(doomedId, destination, 0), WAIT));
            assertAllBytes(destination, 4096, (byte) 0x6B);

            assertCode(ErrorCode.NOT_FOUND, failure(client.fetch("job-9/1/1", destination, 0), WAIT));
            assertCode(ErrorCode.BAD_REQUEST, failure(client.fetch("not-a-partition", destination, 0), WAIT));
            assertCode(ErrorCode.BAD_REQUEST, failure(client.fetch("../1/1", destination, 0), WAIT));
            assertTrue(server.counters().errors() >= 5);
        }
        assertEquals(0, source.openHandles());
        assertEquals(mappingsBefore, MappedRegion.liveMappings(), "every partition mapping unmapped");
    }

    @Test
    void aMisplacedFileOrAnUnexpectedCrcIsAnsweredCorruptWithNothingSent() throws IOException
    {
        final ShufflePartitionStore store = new ShufflePartitionStore(workDir, PinSet.NONE);
        final PartitionId p0 = new PartitionId("job", 1, 0);
        final PartitionId p3 = new PartitionId("job", 1, 3);
        final UnsafeBuffer content0 = write(store, p0, 64 * 1024, 1);
        write(store, p3, 64 * 1024, 2);
        final int crc0;
        try (MappedPartition partition = store.openPartition(p0))
        {
            crc0 = partition.crc32c();
        }
        final ShufflePartitionSource source = new ShufflePartitionSource(store);
        try (AeronMedia media = TestSupport.launchTestMedia();
            PayloadServer server = PayloadServer.launch(new PayloadServer.Context().aeron(media.aeron())
                .payloadSource(source).requestChannel(TransportChannels.IPC));
            PayloadClient client = PayloadClient.connect(new PayloadClient.Context().aeron(media.aeron())
                .requestChannel(TransportChannels.IPC)))
        {
            final UnsafeBuffer destination = filledDirect(64 * 1024, (byte) 0);
            final String expected = ShufflePartitionSource.idOf(p0, crc0);
            assertEquals(expected, "job/1/0@" + String.format("%08x", crc0));
            assertEquals(p0, ShufflePartitionSource.parseId(expected));
            assertEquals(64 * 1024, join(client.fetch(expected, destination, 0), WAIT));
            assertBytesEqual(content0, 0, destination, 0, 64 * 1024);

            destination.setMemory(0, 64 * 1024, (byte) 0x6B);
            final FetchException otherCrc = failure(client.fetch(ShufflePartitionSource.idOf(p0, crc0 ^ 1),
                destination, 0), WAIT);
            assertCode(ErrorCode.CORRUPT, otherCrc);
            assertTrue(otherCrc.getMessage().contains("the client expects"), otherCrc.getMessage());
            assertAllBytes(destination, 64 * 1024, (byte) 0x6B);

            // partition 0's valid file copied over partition 3's
            Files.copy(store.pathOf(p0), store.pathOf(p3), StandardCopyOption.REPLACE_EXISTING);
            final FetchException swapped = failure(client.fetch(ShufflePartitionSource.idOf(p3), destination, 0),
                WAIT);
            assertCode(ErrorCode.CORRUPT, swapped);
            assertTrue(swapped.getMessage().contains("holds partition job/1/0, not job/1/3"), swapped.getMessage());
            assertAllBytes(destination, 64 * 1024, (byte) 0x6B);

            assertCode(ErrorCode.BAD_REQUEST, failure(client.fetch("job/1/0@12", destination, 0), WAIT));
            assertCode(ErrorCode.BAD_REQUEST, failure(client.fetch("job/1/0@zzzzzzzz", destination, 0), WAIT));
            assertEquals(4, server.counters().errors());
        }
        assertEquals(0, source.openHandles());
    }

    private static UnsafeBuffer write(
        final ShufflePartitionStore store, final PartitionId id, final int size, final long seed)
    {
        final UnsafeBuffer content = randomDirect(size, seed);
        try (PartitionWriter writer = store.openWriter(id))
        {
            writer.write(content, 0, size);
            writer.commit();
        }
        return content;
    }

    private static void flipByteOnDisk(final Path file, final long position) throws IOException
    {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE))
        {
            final ByteBuffer one = ByteBuffer.allocate(1);
            channel.read(one, position);
            one.put(0, (byte) (one.get(0) ^ 0x01)).position(0);
            channel.write(one, position);
        }
    }
}
