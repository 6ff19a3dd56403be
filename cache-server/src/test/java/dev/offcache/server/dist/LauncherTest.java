package dev.offcache.server.dist;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import dev.offcache.server.cli.OffcacheServerCommand;
import dev.offcache.server.tier.TieredBlockStore;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The launcher the build generates ({@code target/bin/offcache-server}, filtered and made executable at
 * process-resources), run for real with a {@code java} that prints its arguments: it is executable, passes the
 * build's JVM flags, and sizes {@code -XX:MaxDirectMemorySize} from the RAM tier with the program's precedence
 * (flag, environment, config file, default) unless {@code OFFCACHE_JAVA_OPTS} names the flag. The container
 * entry point derives the RAM tier and heap from a memory limit; the systemd unit and the Dockerfile run that
 * launcher with the program's flags. (No container runtime here: the image itself is not built; ServerProcessTest
 * starts the program's main for real.)
 */
class LauncherTest
{
    private static final Path GENERATED = Path.of("target", "bin", "offcache-server");
    private static final Path DIST = Path.of("src", "main", "dist");
    /** The program's RAM-tier default plus the launcher's 512 MiB of headroom. */
    /** The launcher's default unless the operator's options name the leak detector (its sampling costs CPU). */
    private static final String NO_LEAK_DETECTOR = "-Dio.netty.leakDetection.level=disabled";
    private static final long DEFAULT_DIRECT_MB = (TieredBlockStore.Context.DEFAULT_RAM_CAPACITY_BYTES >> 20) + 512;

    @TempDir
    Path tmp;

    private Path launcher;
    private Path javaHome;

    @BeforeEach
    void install() throws IOException
    {
        assertTrue(Files.isExecutable(GENERATED), "the build makes " + GENERATED + " executable");
        Files.createDirectories(tmp.resolve("dist/bin"));
        launcher = Files.copy(GENERATED, tmp.resolve("dist/bin/offcache-server"));
        Files.writeString(tmp.resolve("dist/offcache-server.jar"), "not a jar: the fake java never opens it");
        javaHome = Files.createDirectories(tmp.resolve("jdk/bin")).getParent();
        final Path java = Files.writeString(javaHome.resolve("bin/java"), "#!/bin/sh\necho \"$@\"\n");
        Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    private String run(final Map<String, String> env, final String... args) throws Exception
    {
        return runScript(launcher, env, args);
    }

    private String runScript(final Path script, final Map<String, String> env, final String... args)
        throws Exception
    {
        final List<String> command = new ArrayList<>();
        command.add(script.toString());
        command.addAll(List.of(args));
        final ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().keySet().removeIf((name) -> name.startsWith("OFFCACHE_"));
        builder.environment().put("JAVA_HOME", javaHome.toString());
        builder.environment().putAll(env);
        final Process process = builder.start();
        final String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        assertTrue(process.waitFor(30, TimeUnit.SECONDS));
        assertEquals(0, process.exitValue(), out);
        return out;
    }

    @Test
    void passesTheBuildsFlagsAndSizesDirectMemoryWithTheProgramsPrecedence() throws Exception
    {
        final String flags = System.getProperty("offcache.jvm.flags", "").trim();
        // the default RAM tier is the program's constant, written into the launcher by the build (never retyped)
        assertTrue(!Files.readString(GENERATED).contains("@offcache.ram.mb.default@"), "the build wrote it in");
        final String plain = run(Map.of());
        assertTrue(plain.startsWith(flags + " -Xms64m -Xmx512m -Xmn32m -XX:MaxDirectMemorySize=" +
            DEFAULT_DIRECT_MB + "m " + NO_LEAK_DETECTOR + " -jar "), plain);
        assertTrue(plain.endsWith("offcache-server.jar"), plain);

        final Path config = Files.writeString(tmp.resolve("server.properties"), "listen=127.0.0.1:0\nram-mb = 4096\n");
        assertTrue(run(Map.of(), "--config", config.toString()).contains("-XX:MaxDirectMemorySize=4608m "));
        assertTrue(run(Map.of("OFFCACHE_CONFIG", config.toString())).contains("-XX:MaxDirectMemorySize=4608m "));
        assertTrue(run(Map.of("OFFCACHE_RAM_MB", "100"), "--config=" + config).contains("=612m "),
            "the environment over the file");
        final String flag = run(Map.of("OFFCACHE_RAM_MB", "100"), "--ram-mb", "7", "--config", config.toString());
        assertTrue(flag.contains("-XX:MaxDirectMemorySize=519m "), flag);
        assertTrue(flag.endsWith("--ram-mb 7 --config " + config), "the arguments pass through: " + flag);

        final String own = run(Map.of("OFFCACHE_JAVA_OPTS", "-XX:MaxDirectMemorySize=3g -Xmx1g"));
        assertTrue(own.contains("-XX:MaxDirectMemorySize=3g -Xmx1g -jar"), own);
        assertEquals(1, own.split("MaxDirectMemorySize", -1).length - 1, "only the operator's: " + own);

        final String leaks = run(Map.of("OFFCACHE_JAVA_OPTS", "-Dio.netty.leakDetection.level=paranoid"));
        assertTrue(leaks.contains(" -Dio.netty.leakDetection.level=paranoid -jar "), leaks);
        assertEquals(1, leaks.split("leakDetection", -1).length - 1, "only the operator's: " + leaks);
    }

    @Test
    void theContainerEntryPointSizesTheRamTierAndHeapFromTheMemoryLimit() throws Exception
    {
        final Path entry = Files.copy(DIST.resolve("docker/entrypoint.sh"), tmp.resolve("dist/bin/entrypoint.sh"));
        Files.setPosixFilePermissions(entry, PosixFilePermissions.fromString("rwxr-xr-x"));
        final Path limit = Files.writeString(tmp.resolve("memory.max"), "8589934592\n");
        final String limited = runScript(entry, Map.of("OFFCACHE_CGROUP_MEMORY_FILE", limit.toString()), "--help");
        assertTrue(limited.contains(
            "-XX:MaxDirectMemorySize=4608m " + NO_LEAK_DETECTOR + " -XX:MaxRAMPercentage=20 -jar "), limited);
        assertTrue(limited.endsWith("offcache-server.jar --help"), limited);

        Files.writeString(limit, "max\n");
        final String unlimited = runScript(entry, Map.of("OFFCACHE_CGROUP_MEMORY_FILE", limit.toString()));
        assertTrue(unlimited.contains("-XX:MaxDirectMemorySize=" + DEFAULT_DIRECT_MB +
            "m " + NO_LEAK_DETECTOR + " -XX:MaxRAMPercentage=20 -jar "), unlimited);

        Files.writeString(limit, "8589934592\n");
        final String own = runScript(entry, Map.of("OFFCACHE_CGROUP_MEMORY_FILE", limit.toString(),
            "OFFCACHE_RAM_MB", "100", "OFFCACHE_JAVA_OPTS", "-Xmx2g"));
        assertTrue(own.contains("-XX:MaxDirectMemorySize=612m " + NO_LEAK_DETECTOR + " -Xmx2g -jar "), own);
    }

    @Test
    void theServiceFilesRunTheLauncherWithTheProgramsFlags() throws Exception
    {
        final List<String> unit = Files.readAllLines(DIST.resolve("systemd/offcache-server.service"));
        final String execStart = value(unit, "ExecStart");
        final String[] command = execStart.split(" ");
        assertEquals("/opt/offcache/bin/offcache-server", command[0], "the unit runs the launcher");
        assertEquals("143", value(unit, "SuccessExitStatus"));
        assertEquals("2", value(unit, "RestartPreventExitStatus"), "a refused start is not retried");
        assertTrue(Long.parseLong(value(unit, "LimitNOFILE")) >= 65536);
        assertEquals("offcache", value(unit, "User"));
        // the unit's arguments are the program's own flags
        final CommandLine program = OffcacheServerCommand.commandLine(Map.of());
        program.parseArgs(Arrays.copyOfRange(command, 1, command.length));
        assertTrue(program.getParseResult().hasMatchedOption("--config"));

        final List<String> docker = Files.readAllLines(DIST.resolve("docker/Dockerfile"));
        assertTrue(docker.contains("COPY cache-server/target/bin/offcache-server /opt/offcache/bin/offcache-server"),
            "the image holds the build's launcher where the unit expects it");
        assertTrue(docker.contains("COPY cache-server/target/offcache-server.jar /opt/offcache/offcache-server.jar"),
            "and the jar beside its bin/, where the launcher looks");
        assertTrue(docker.contains("ENTRYPOINT [\"/opt/offcache/bin/entrypoint.sh\"]"));
        assertTrue(docker.contains("USER offcache"), "not root");
        assertTrue(docker.contains("VOLUME /var/cache/offcache"));
        assertTrue(String.join("\n", docker).contains("OFFCACHE_DISK_PATH=/var/cache/offcache"),
            "the SSD tier on the volume");
        assertTrue(Files.isExecutable(DIST.resolve("docker/entrypoint.sh")));
    }

    private static String value(final List<String> unit, final String key)
    {
        return unit.stream().filter((line) -> line.startsWith(key + "=")).findFirst()
            .map((line) -> line.substring(key.length() + 1)).orElseThrow(() -> new AssertionError("no " + key));
    }
}
