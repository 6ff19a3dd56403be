package dev.offcache.range.origin;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FileSystemOriginTest extends ObjectStoreContract
{
    @TempDir
    Path root;

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
    void keysCannotEscapeTheRoot() throws Exception
    {
        Files.writeString(root.getParent().resolve("outside.txt"), "secret");
        final Throwable error = failure(origin.size("../outside.txt"));
        assertTrue(error instanceof IllegalArgumentException && error.getMessage().contains(".."), error.toString());
        assertThrows(Exception.class, () -> get(origin.put("/abs", ByteBuffer.allocate(1))));
        assertTrue(origin.namespace().startsWith("file:"));
    }
}
