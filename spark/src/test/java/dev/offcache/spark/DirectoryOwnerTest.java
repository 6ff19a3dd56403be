package dev.offcache.spark;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Which executor directories the sweep deletes, with real processes as owners: only directories named like an
 * executor's, directly under the root, owned by a process of this host that no longer runs (exited, or its pid now
 * another process's); never a live owner's, the caller's own, another host's, one without an owner file, or anything
 * reached through a link.
 */
class DirectoryOwnerTest
{
    @TempDir
    Path root;
    @TempDir
    Path outside;

    private Process live;

    @AfterEach
    void stopLive()
    {
        if (live != null)
        {
            live.destroyForcibly();
        }
    }

    @Test
    void ownerWrittenIsReadBackWhole() throws IOException
    {
        final DirectoryOwner self = DirectoryOwner.current();
        final Path dir = Files.createDirectories(root.resolve("offcache-app-1-" + self.pid()));
        self.writeTo(dir);
        assertEquals(Optional.of(self), DirectoryOwner.readFrom(dir));
        assertEquals(ProcessHandle.current().pid(), self.pid());
        assertTrue(self.startMillis() > 0, "the start time is known on Linux: " + self);
        assertFalse(self.isDeadOn(self));
        assertEquals(List.of(dir.resolve(DirectoryOwner.FILE)), list(dir), "no temporary file left");
    }

    @Test
    void deletesOnlyTheDirectoriesOfDeadProcessesOfThisHost() throws Exception
    {
        final DirectoryOwner here = DirectoryOwner.current();
        final DirectoryOwner exited = exitedProcess(here);
        live = new ProcessBuilder("sleep", "120").start();
        final DirectoryOwner alive = ownerOf(live.toHandle(), here);
        final DirectoryOwner reusedPid = new DirectoryOwner(here.host(), here.bootId(), alive.pid(),
            alive.startMillis() - 60_000);
        final DirectoryOwner otherHost = new DirectoryOwner(here.host() + "-other", here.bootId(), exited.pid(),
            exited.startMillis());
        final DirectoryOwner rebooted = new DirectoryOwner(here.host(), "another-boot", alive.pid(),
            alive.startMillis());

        final Path dead = executorDir("offcache-app-1-" + exited.pid(), exited);
        final Path reused = executorDir("offcache-app-2-" + alive.pid(), reusedPid);
        final Path beforeReboot = executorDir("offcache-app-3-" + alive.pid(), rebooted);
        final Path running = executorDir("offcache-app-4-" + alive.pid(), alive);
        final Path remote = executorDir("offcache-app-5-" + exited.pid(), otherHost);
        final Path mine = executorDir("offcache-app-6-" + exited.pid(), exited);
        final Path noOwner = Files.createDirectories(root.resolve("offcache-app-7-" + exited.pid()).resolve("job"));
        final Path otherName = executorDir("spark-app-8-" + exited.pid(), exited);
        final Path linkTarget = executorDir("offcache-elsewhere-9-" + exited.pid(), exited, outside);
        final Path link = Files.createSymbolicLink(root.resolve("offcache-app-9-" + exited.pid()), linkTarget);

        final List<Path> deleted = DirectoryOwner.sweepDead(root, mine);

        assertEquals(List.of(beforeReboot, dead, reused).stream().sorted().toList(),
            deleted.stream().sorted().toList());
        for (final Path gone : List.of(dead, reused, beforeReboot))
        {
            assertFalse(Files.exists(gone), gone + " deleted");
        }
        for (final Path kept : List.of(running, remote, mine, otherName, linkTarget))
        {
            assertTrue(Files.isRegularFile(kept.resolve("job").resolve("0").resolve("1.data")), kept + " kept");
        }
        assertTrue(Files.isDirectory(noOwner), "a directory without an owner file is kept");
        assertTrue(Files.isSymbolicLink(link), "the link is not followed nor deleted");
        assertEquals(List.of(), DirectoryOwner.sweepDead(root, mine), "a second sweep finds nothing more");
        assertEquals(List.of(), DirectoryOwner.sweepDead(root.resolve("missing"), null));
    }

    @Test
    void aSweepCutShortBeforeTheOwnerFileIsFinishedByTheNext() throws Exception
    {
        final DirectoryOwner exited = exitedProcess(DirectoryOwner.current());
        final Path dead = executorDir("offcache-app-1-" + exited.pid(), exited);
        OffcacheExecutor.deleteRecursively(dead.resolve("job"));
        assertEquals(List.of(dead.resolve(DirectoryOwner.FILE)), list(dead));
        assertEquals(List.of(dead), DirectoryOwner.sweepDead(root, null));
    }

    private Path executorDir(final String name, final DirectoryOwner owner) throws IOException
    {
        return executorDir(name, owner, root);
    }

    private static Path executorDir(final String name, final DirectoryOwner owner, final Path parent)
        throws IOException
    {
        final Path dir = Files.createDirectories(parent.resolve(name));
        owner.writeTo(dir);
        final Path stage = Files.createDirectories(dir.resolve("job").resolve("0"));
        Files.write(stage.resolve("1.data"), new byte[] {1, 2, 3});
        return dir;
    }

    private static DirectoryOwner exitedProcess(final DirectoryOwner here) throws Exception
    {
        final Process process = new ProcessBuilder("sleep", "120").start();
        final DirectoryOwner owner = ownerOf(process.toHandle(), here);
        process.destroyForcibly().waitFor();
        assertFalse(ProcessHandle.of(owner.pid()).map(ProcessHandle::isAlive).orElse(false), "exited");
        return owner;
    }

    private static DirectoryOwner ownerOf(final ProcessHandle process, final DirectoryOwner here)
    {
        final long start = process.info().startInstant().map(Instant::toEpochMilli).orElseThrow();
        return new DirectoryOwner(here.host(), here.bootId(), process.pid(), start);
    }

    private static List<Path> list(final Path dir) throws IOException
    {
        try (var paths = Files.list(dir))
        {
            return paths.toList();
        }
    }
}
