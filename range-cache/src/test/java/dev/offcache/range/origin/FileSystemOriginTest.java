package dev.offcache.range.origin;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.offcache.range.store.FetchClass;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FileSystemOriginTest extends ObjectStoreContract
{
    @TempDir
    Path root;

    @TempDir
    Path outside;

    @Override
    protected void startServer()
    {
    }

    @Override
    protected ObjectStore newOrigin()
    {
        return new FileSystemOrigin(root, 2);
    }

    @Override
    protected void stopServer()
    {
    }

    @Test
    void readBlocksLandsEachBufferInOrderTellingTheSizeFirstAndStopsAtTheEnd() throws Exception
    {
        final byte[] bytes = new byte[2 * 4096 + 100];
        new Random(3).nextBytes(bytes);
        Files.write(root.resolve("blocks.bin"), bytes);
        assertTrue(origin.readsBlocks());
        final ByteBuffer[] blocks = new ByteBuffer[4];
        for (int i = 0; i < blocks.length; i++)
        {
            blocks[i] = ByteBuffer.allocateDirect(4096);
        }
        final List<String> events = new CopyOnWriteArrayList<>();
        final int read = get(origin.readBlocks("blocks.bin", 0, blocks, FetchClass.DEMAND,
            (size) -> events.add("size " + size), (index, n) -> events.add(index + ":" + n)));
        assertEquals(bytes.length, read);
        assertEquals(List.of("size " + bytes.length, "0:4096", "1:4096", "2:100"), events,
            "the size first, then each block once it is full or the object ends in it; nothing past the end");
        for (int i = 0; i < bytes.length; i++)
        {
            assertEquals(bytes[i], blocks[i / 4096].get(i % 4096), "byte " + i);
        }
        assertEquals(0, blocks[0].position(), "the caller's buffers are not moved");

        final ByteBuffer[] past = {ByteBuffer.allocateDirect(16)};
        final List<Integer> filled = new CopyOnWriteArrayList<>();
        assertEquals(0, get(origin.readBlocks("blocks.bin", bytes.length, past, FetchClass.DEMAND,
            null, (index, n) -> filled.add(index))));
        assertEquals(List.of(), filled, "a read past the end fills nothing");
    }

    @Test
    void keysCannotEscapeTheRoot() throws Exception
    {
        Files.writeString(root.getParent().resolve("outside.txt"), "secret");
        final Throwable error = failure(origin.size("../outside.txt"));
        assertTrue(error instanceof IllegalArgumentException && error.getMessage().contains(".."), error.toString());
        assertThrows(Exception.class, () -> get(origin.put("/abs", ByteBuffer.allocate(1))));
        assertTrue(origin.namespace().startsWith("file:"));
    }

    @Test
    void symbolicLinksInsideTheRootNeverReachFilesOutsideIt() throws Exception
    {
        Files.writeString(outside.resolve("secret.txt"), "secret");
        Files.createDirectories(outside.resolve("dir"));
        Files.writeString(outside.resolve("dir/inner.txt"), "inner secret");
        Files.createSymbolicLink(root.resolve("leak.txt"), outside.resolve("secret.txt"));
        Files.createSymbolicLink(root.resolve("linked"), outside.resolve("dir"));
        Files.writeString(root.resolve("real.txt"), "inside");
        Files.createSymbolicLink(root.resolve("alias.txt"), root.resolve("real.txt"));

        for (final String key : new String[] {"leak.txt", "linked/inner.txt"})
        {
            assertInstanceOf(ObjectNotFoundException.class, failure(origin.size(key)), key);
            assertInstanceOf(ObjectNotFoundException.class,
                failure(origin.read(key, 0, ByteBuffer.allocate(4))), key);
            assertInstanceOf(ObjectNotFoundException.class, failure(origin.version(key)), key);
            assertInstanceOf(ObjectNotFoundException.class,
                failure(origin.readIfMatch(key, 0, ByteBuffer.allocate(4), "any")), key);
        }
        assertEquals(List.of("alias.txt", "real.txt"), get(origin.list("")),
            "a link to a file inside the root is an object; links leading out are not listed");

        final ByteBuffer alias = ByteBuffer.allocate(6);
        assertEquals(6, get(origin.read("alias.txt", 0, alias)));
        assertArrayEquals("inside".getBytes(StandardCharsets.US_ASCII), alias.array());

        final Throwable write = failure(origin.put("linked/new.txt", ByteBuffer.wrap(new byte[] {1})));
        assertInstanceOf(IllegalArgumentException.class, write);
        assertTrue(write.getMessage().contains("symbolic link"), write.getMessage());
        assertTrue(Files.notExists(outside.resolve("dir/new.txt")), "nothing written outside the root");
        Files.delete(root.resolve("leak.txt"));
        Files.delete(root.resolve("linked"));
    }
}
