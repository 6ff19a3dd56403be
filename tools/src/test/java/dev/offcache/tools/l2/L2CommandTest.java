package dev.offcache.tools.l2;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import dev.offcache.range.l2.shard.RendezvousHash;
import dev.offcache.range.l2.shard.ShardedL2Context;
import dev.offcache.server.cli.OffcacheServerCommand;
import dev.offcache.server.cli.ServerProgram;
import dev.offcache.tools.ToolRun;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code offcache-l2} against two real L2 servers on 127.0.0.1 (each started from its own flags over one origin
 * directory): {@code owner} names the rendezvous owner of each key; {@code get} writes exactly the origin's bytes
 * (whole and a range), says which server served them, and that server is the owner; a missing key, a bad range and
 * stopped servers exit non-zero with one line, and never read the origin (the client has none).
 */
@Timeout(120)
class L2CommandTest
{
    private static final String KEY = "0123456789abcdef0123456789abcdef";

    @TempDir
    Path tmp;

    private Path origin;
    private final ServerProgram[] servers = new ServerProgram[2];
    private String serverList;
    private byte[] object;

    @BeforeEach
    void start() throws Exception
    {
        origin = tmp.resolve("origin");
        Files.createDirectories(origin.resolve("lake/t"));
        object = new byte[3 * 65536 + 1234];
        new Random(7).nextBytes(object);
        for (int i = 0; i < 8; i++)
        {
            Files.write(origin.resolve("lake/t/part-" + i + ".bin"), object);
        }
        final StringBuilder list = new StringBuilder();
        for (int s = 0; s < servers.length; s++)
        {
            final CommandLine commandLine = OffcacheServerCommand.commandLine(Map.of("OFFCACHE_API_KEYS", KEY));
            commandLine.setOut(new PrintWriter(new StringWriter()));
            commandLine.parseArgs("--listen", "127.0.0.1:0", "--origin-dir", origin.toString(),
                "--block-size-kb", "64", "--ram-mb", "1", "--memory-budget-mb", "1",
                "--server-counters-file", counters(s).toString());
            servers[s] = ((OffcacheServerCommand) commandLine.getCommand()).start();
            list.append(s == 0 ? "" : ",").append("http://127.0.0.1:").append(servers[s].server().address().getPort());
        }
        serverList = list.toString();
    }

    @AfterEach
    void stop()
    {
        for (final ServerProgram server : servers)
        {
            if (server != null)
            {
                server.close();
            }
        }
    }

    @Test
    void getWritesTheOriginsBytesFromTheKeysOwner() throws Exception
    {
        for (int i = 0; i < 8; i++)
        {
            final String key = "lake/t/part-" + i + ".bin";
            final String owner = expectedOwner(key);
            assertEquals(new ToolRun(0, key + " " + owner + "\n", ""), run("owner", key));

            final Path whole = tmp.resolve("whole-" + i);
            final ToolRun get = run("get", key, "-o", whole.toString());
            assertEquals(0, get.status(), get.toString());
            assertArrayEquals(object, Files.readAllBytes(whole));
            assertTrue(get.err().startsWith("offcache-l2: " + key + ": " + object.length + " bytes (0-" +
                (object.length - 1) + ") from " + owner + ","), get.err());

            final Path part = tmp.resolve("part-" + i);
            final ToolRun range = run("get", key, "--range", "70000-150000", "-o", part.toString());
            assertEquals(0, range.status(), range.toString());
            assertArrayEquals(Arrays.copyOfRange(object, 70000, 150001), Files.readAllBytes(part));
        }
    }

    @Test
    void theOwnersCountersFileShowsTheRequestsFromOutside() throws Exception
    {
        final int[] owned = new int[servers.length];
        final String[] ids = serverList.split(",");
        for (int i = 0; i < 8; i++)
        {
            final String key = "lake/t/part-" + i + ".bin";
            final ToolRun get = run("get", key, "-o", tmp.resolve("whole-" + i).toString());
            assertEquals(0, get.status(), get.toString());
            owned[Arrays.asList(ids).indexOf(expectedOwner(key))]++;
        }
        for (int s = 0; s < servers.length; s++)
        {
            final ToolRun counters = new ToolRun(dev.offcache.tools.counters.CountersCommand.commandLine(),
                counters(s).toString(), "--match", "^offcache_server_http_requests_total\\{endpoint=\"obj\"");
            assertEquals(0, counters.status(), counters.toString());
            long requests = 0;
            for (final String line : counters.out().split("\n"))
            {
                if (!line.isEmpty())
                {
                    requests += Long.parseLong(line.substring(line.lastIndexOf(' ') + 1));
                }
            }
            // per key its owner answered one HEAD (the size) and one ranged GET (the object is under 1 MiB)
            assertEquals(2L * owned[s], requests, ids[s] + ": " + counters.out());
        }
        final ToolRun notAFile = new ToolRun(dev.offcache.tools.counters.CountersCommand.commandLine(),
            origin.resolve("lake/t/part-0.bin").toString());
        assertEquals(2, notAFile.status(), notAFile.toString());
        assertTrue(notAFile.err().startsWith("offcache-counters: "), notAFile.err());
    }

    @Test
    void failuresExitNonZeroWithOneLine() throws Exception
    {
        final ToolRun missing = run("get", "lake/t/nope.bin", "-o", tmp.resolve("nope").toString());
        assertEquals(1, missing.status(), missing.toString());
        assertTrue(missing.err().startsWith("offcache-l2: lake/t/nope.bin"), missing.err());

        final ToolRun badRange = run("get", "lake/t/part-0.bin", "--range", "9-3");
        assertEquals(2, badRange.status(), badRange.toString());
        assertTrue(badRange.err().contains("--range"), badRange.err());

        stop();
        final Path none = tmp.resolve("none");
        final ToolRun down = run("get", "lake/t/part-0.bin", "-o", none.toString(), "--timeout-ms", "10000");
        assertEquals(1, down.status(), down.toString());
        assertTrue(down.err().contains("not served by L2"), down.err());
        assertEquals(0, Files.exists(none) ? Files.size(none) : 0, "no bytes from anywhere else");
    }

    private Path counters(final int server)
    {
        return tmp.resolve("counters-" + server);
    }

    private String expectedOwner(final String key)
    {
        String best = null;
        long bestWeight = 0;
        long bestSeed = 0;
        for (final String server : serverList.split(","))
        {
            final String id = ShardedL2Context.serverId(URI.create(server));
            final long seed = RendezvousHash.hash(id);
            final long weight = RendezvousHash.weight(seed, RendezvousHash.hash(key));
            if (best == null || RendezvousHash.beats(weight, seed, bestWeight, bestSeed))
            {
                best = id;
                bestWeight = weight;
                bestSeed = seed;
            }
        }
        return best;
    }

    private ToolRun run(final String... args)
    {
        final String[] all = Arrays.copyOf(args, args.length + 2);
        all[args.length] = "--servers";
        all[args.length + 1] = serverList;
        return new ToolRun(L2Command.commandLine(Map.of("OFFCACHE_L2_API_KEY", KEY)), all);
    }
}
