package dev.offcache.transport;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import dev.offcache.transport.client.PayloadClient;
import dev.offcache.transport.media.AeronMedia;
import dev.offcache.core.media.EmbeddedDrivers;
import dev.offcache.transport.media.TransportChannels;
import dev.offcache.transport.server.PayloadServer;
import dev.offcache.transport.source.DirectBufferPayloadSource;
import io.aeron.Aeron;
import io.aeron.CommonContext;
import org.agrona.IoUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static dev.offcache.transport.TestSupport.assertBytesEqual;
import static dev.offcache.transport.TestSupport.filledDirect;
import static dev.offcache.transport.TestSupport.join;
import static dev.offcache.transport.TestSupport.randomDirect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The external-driver path: {@code io.aeron.driver.MediaDriver} runs in a child JVM; server and client connect
 * to it through its directory, fetch over UDP (127.0.0.1) and IPC, and a third, unrelated Aeron client reads the
 * server's counters from the driver's CnC file as AeronStat would. The child is killed at the end.
 */
class ExternalDriverTest
{
    private static final Duration WAIT = Duration.ofSeconds(30);

    @Test
    void serverAndClientWorkThroughAMediaDriverInAnotherJvm() throws Exception
    {
        final String flags = System.getProperty("offcache.jvm.flags");
        assertNotNull(flags, "offcache.jvm.flags must be passed by the module pom");
        final Path dir = Paths.get("/dev/shm", EmbeddedDrivers.DIR_PREFIX + "external-" +
            ProcessHandle.current().pid() + "-" + Integer.toHexString(ThreadLocalRandom.current().nextInt()));
        final List<String> command = new ArrayList<>();
        command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(Arrays.asList(flags.trim().split("\\s+")));
        command.addAll(List.of(
            "-Xmx256m",
            "-cp", System.getProperty("java.class.path"),
            "-Daeron.dir=" + dir,
            "-Daeron.dir.delete.on.start=true",
            "-Daeron.dir.delete.on.shutdown=true",
            "-Daeron.threading.mode=SHARED",
            "-Daeron.term.buffer.sparse.file=true",
            "-Daeron.publication.linger.timeout=200ms",
            "io.aeron.driver.MediaDriver"));
        final Process driver = new ProcessBuilder(command).redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        try
        {
            TestSupport.awaitTrue("the external media driver to start", Duration.ofSeconds(20),
                () -> driver.isAlive() && isDriverActive(dir));

            final UnsafeBuffer block = randomDirect(8 * 1024 * 1024 + 3, 31);
            final DirectBufferPayloadSource source = new DirectBufferPayloadSource().register("block", block);
            final String udp = TransportChannels.udp("127.0.0.1", TestSupport.freeUdpPort());
            try (AeronMedia media = AeronMedia.launch(new AeronMedia.Context().aeronDirectoryName(dir.toString()));
                PayloadServer udpServer = PayloadServer.launch(new PayloadServer.Context().aeron(media.aeron())
                    .payloadSource(source).requestChannel(udp).serverName("external-udp"));
                PayloadServer ipcServer = PayloadServer.launch(new PayloadServer.Context().aeron(media.aeron())
                    .payloadSource(source).requestChannel(TransportChannels.IPC).serverName("external-ipc"));
                PayloadClient udpClient = PayloadClient.connect(new PayloadClient.Context().aeron(media.aeron())
                    .requestChannel(udp));
                PayloadClient ipcClient = PayloadClient.connect(new PayloadClient.Context().aeron(media.aeron())
                    .requestChannel(TransportChannels.IPC)))
            {
                assertFalse(media.isEmbedded());
                for (final PayloadClient client : List.of(udpClient, ipcClient))
                {
                    final UnsafeBuffer destination = filledDirect(block.capacity(), (byte) 0);
                    assertEquals(block.capacity(), join(client.fetch("block", destination, 0), WAIT));
                    assertBytesEqual(block, 0, destination, 0, block.capacity());
                }

                assertEquals(1, udpServer.counters().requests());
                assertEquals(1, ipcServer.counters().requests());
                try (Aeron stat = Aeron.connect(new Aeron.Context().aeronDirectoryName(dir.toString())))
                {
                    assertEquals(1, TestSupport.counterValue(stat.countersReader(),
                        "offcache_transport_requests_total server=external-udp"));
                    assertEquals(block.capacity(), TestSupport.counterValue(stat.countersReader(),
                        "offcache_transport_sent_bytes_total server=external-udp"));
                    assertEquals(1, TestSupport.counterValue(stat.countersReader(),
                        "offcache_transport_requests_total server=external-ipc"));
                }
            }
            assertEquals(0, source.openHandles());
            assertTrue(driver.isAlive(), "closing our clients must not stop the external driver");
        }
        finally
        {
            driver.destroy();
            if (!driver.waitFor(10, TimeUnit.SECONDS))
            {
                driver.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
            IoUtil.delete(new File(dir.toString()), true);
        }
        assertFalse(driver.isAlive());
        assertFalse(Files.exists(dir));
    }

    private static boolean isDriverActive(final Path dir)
    {
        try
        {
            return CommonContext.isDriverActive(dir.toFile(), 100, ExternalDriverTest::ignore);
        }
        catch (final RuntimeException ex)
        {
            return false; // CnC file created but not yet initialised: still starting
        }
    }

    private static void ignore(final String message)
    {
    }
}
