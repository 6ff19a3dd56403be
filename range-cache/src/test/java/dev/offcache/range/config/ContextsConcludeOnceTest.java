package dev.offcache.range.config;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.Stream;

import dev.offcache.core.config.ConcurrentConcludeException;
import dev.offcache.range.ram.RamBlockStore;
import dev.offcache.range.l2.L2ClientContext;
import dev.offcache.range.l2.L2Client;
import dev.offcache.range.l2.shard.ShardedL2Context;
import dev.offcache.range.l2.shard.ShardedL2Client;
import dev.offcache.range.origin.FileSystemOrigin;
import dev.offcache.range.store.FetchClass;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every context of this module configures one component: given to a second one (or concluded by hand first) it is
 * refused with {@link ConcurrentConcludeException}, and the first component still works. The L2 clients' server is a
 * refused port on 127.0.0.1, so "works" is a read that falls back to the origin and equals its bytes.
 */
class ContextsConcludeOnceTest
{
    private static final int BLOCK = 4096;
    private static final byte[] TRUTH = new byte[3 * BLOCK];

    @TempDir
    static Path root;

    /**
     * One component: how to make its context, conclude it by hand, make the component over it, show it works, and
     * release what a context that never made a component holds (the L2 clients' origin).
     */
    record Component<C, T extends AutoCloseable>(
        String context, Function<Path, C> newContext, Consumer<C> conclude, Function<C, T> open, Consumer<T> works,
        Consumer<C> release)
    {
        @Override
        public String toString()
        {
            return context;
        }
    }

    @BeforeAll
    static void writeObject() throws IOException
    {
        new Random(17).nextBytes(TRUTH);
        Files.write(root.resolve("obj.bin"), TRUTH);
    }

    static Stream<Component<?, ?>> components()
    {
        return Stream.of(
            new Component<>("RamBlockStore.Context",
                (dir) -> new RamBlockStore.Context().capacityBytes(4L * BLOCK).blockSize(BLOCK),
                RamBlockStore.Context::conclude, RamBlockStore::new,
                (store) ->
                {
                    final UnsafeBuffer block = new UnsafeBuffer(TRUTH, 0, BLOCK);
                    assertTrue(store.put(7, block, 0, BLOCK, FetchClass.DEMAND));
                    final UnsafeBuffer read = new UnsafeBuffer(new byte[BLOCK]);
                    assertEquals(BLOCK, store.read(7, 0, read, 0, BLOCK));
                    assertArrayEquals(Arrays.copyOf(TRUTH, BLOCK), read.byteArray());
                },
                (context) ->
                {
                }),
            new Component<>("L2ClientContext",
                (dir) -> new L2ClientContext().serverUri(refusedServer()).apiKey("k")
                    .origin(new FileSystemOrigin(dir, 1)),
                L2ClientContext::conclude, L2Client::new,
                (client) -> assertReadEqualsOrigin(client::read),
                (context) -> context.origin().close()),
            new Component<>("ShardedL2Context",
                (dir) -> new ShardedL2Context().server(refusedServer()).apiKey("k")
                    .origin(new FileSystemOrigin(dir, 1)),
                ShardedL2Context::conclude, ShardedL2Client::new,
                (router) -> assertReadEqualsOrigin(router::read),
                (context) -> context.origin().close()));
    }

    @ParameterizedTest
    @MethodSource("components")
    void aContextGivenToASecondComponentIsRefusedAndTheFirstStillWorks(final Component<?, ?> component)
        throws Exception
    {
        refusedForASecondComponent(component);
    }

    @ParameterizedTest
    @MethodSource("components")
    void aContextConcludedByHandIsRefusedByTheComponent(final Component<?, ?> component)
    {
        concludedByHand(component);
    }

    private static <C, T extends AutoCloseable> void refusedForASecondComponent(final Component<C, T> component)
        throws Exception
    {
        final C context = component.newContext().apply(root);
        final T first = component.open().apply(context);
        try
        {
            final ConcurrentConcludeException refused =
                assertThrows(ConcurrentConcludeException.class, () -> component.open().apply(context));
            assertTrue(refused.getMessage().startsWith(component.context() + " is already concluded"),
                refused.getMessage());
            component.works().accept(first);
        }
        finally
        {
            first.close();
        }
    }

    private static <C, T extends AutoCloseable> void concludedByHand(final Component<C, T> component)
    {
        final C context = component.newContext().apply(root);
        component.conclude().accept(context);
        assertThrows(ConcurrentConcludeException.class, () -> component.open().apply(context));
        component.release().accept(context);
    }

    /** A read through the client of a whole object that spans three blocks: bytes equal to the origin's. */
    private static void assertReadEqualsOrigin(final Reader reader)
    {
        final ByteBuffer destination = ByteBuffer.allocateDirect(TRUTH.length);
        try
        {
            assertEquals(TRUTH.length, reader.read("obj.bin", 0, destination).get(10, TimeUnit.SECONDS));
        }
        catch (final Exception ex)
        {
            throw new AssertionError(ex);
        }
        final byte[] got = new byte[TRUTH.length];
        destination.get(got);
        assertArrayEquals(TRUTH, got);
    }

    /** The read of an origin: {@code ObjectStore.read}. */
    interface Reader
    {
        CompletableFuture<Integer> read(String key, long offset, ByteBuffer destination);
    }

    /** A port on 127.0.0.1 that was just free: connecting is refused at once. */
    private static URI refusedServer()
    {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
        {
            return URI.create("http://127.0.0.1:" + socket.getLocalPort());
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }
}
