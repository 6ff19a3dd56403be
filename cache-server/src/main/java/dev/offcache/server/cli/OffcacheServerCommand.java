package dev.offcache.server.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import dev.offcache.range.engine.RangeCacheBuilder;
import dev.offcache.range.origin.ObjectStore;
import dev.offcache.server.http.ApiKeys;
import dev.offcache.server.http.L2HttpServer;
import dev.offcache.server.http.ListenFailedException;
import dev.offcache.server.metrics.BuildInfo;
import dev.offcache.server.s3.S3Credentials;
import dev.offcache.server.tier.TieredBlockStore;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code offcache-server} program: the shared L2 cache server. Every option can also be set with an
 * {@code OFFCACHE_*} environment variable (see {@link EnvironmentDefaults}); invalid values are refused at start,
 * naming the flag and the variable. With no options it runs the embedded default: a local sample origin, a
 * temporary SSD directory, a random API key, 127.0.0.1:8080.
 *
 * <p>The flags are declared in {@code ServerOptions}, which this class extends; the checks across flags are
 * {@code FlagChecks}', the origin is made by {@code OriginFactory} and the start-up lines printed by
 * {@code StartupBanner}. This class wires them: {@code --help}'s sections, the flag-to-setting maps, the start and
 * the shutdown hook.
 */
@Command(
    name = "offcache-server",
    mixinStandardHelpOptions = true,
    abbreviateSynopsis = true,
    versionProvider = OffcacheServerCommand.Version.class,
    sortOptions = false,
    description = {
        "The offcache shared L2 cache server: HTTP byte-range reads over a RAM + SSD tiered cache in front of an " +
        "origin.",
        "Every option can also be set with an environment variable: --foo-bar is OFFCACHE_FOO_BAR.",
        "With no options it serves sample objects from a local directory with a random API key."})
public final class OffcacheServerCommand extends ServerOptions implements Callable<Integer>
{
    /** {@code --version}: the build's version, the one {@code offcache_build_info} on {@code /metrics} shows. */
    static final class Version implements CommandLine.IVersionProvider
    {
        @Override
        public String[] getVersion()
        {
            return new String[] {"offcache-server " + BuildInfo.VERSION};
        }
    }

    /** The system property the built-in Logback configurations read for the level of {@code offcache.access}. */
    static final String ACCESS_LOG_LEVEL_PROPERTY = "offcache.access.level";

    private Map<String, String> env = Map.of();
    private EnvironmentDefaults defaults = new EnvironmentDefaults(Map.of());

    /**
     * The sections of {@code --help}, each a heading and its options in order; every option is in one (a test holds
     * them to it), so the list reads by topic instead of as one long run.
     */
    static final Map<String, List<String>> HELP_SECTIONS = helpSections();

    private static Map<String, List<String>> helpSections()
    {
        final Map<String, List<String>> sections = new LinkedHashMap<>();
        sections.put("Origin (one of them; none: the embedded sample directory)", List.of("--origin-dir",
            "--http-origin", "--s3-endpoint", "--s3-bucket", "--bucket-dirs", "--s3-region", "--s3-access-key",
            "--s3-secret-key", "--fetch-threads"));
        sections.put("Listener and authentication", List.of("--listen", "--api-keys", "--disable-auth",
            "--allowed-prefixes", "--transport", "--io-threads"));
        sections.put("S3 API (a listener of its own)", List.of("--s3-api-listen", "--s3-api-keys", "--s3-api-bucket",
            "--s3-api-domain", "--s3-api-region", "--s3-api-writes"));
        sections.put("Tiers: RAM and SSD", List.of("--ram-mb", "--disk-path", "--disk-mb", "--ssd-scrub-mb-per-s",
            "--ssd-read-threads", "--ssd-open-files"));
        sections.put("Engine (the same settings and variables as an engine process)", List.of("--block-size-kb",
            "--fetch-permits", "--demand-reserved-permits", "--max-coalesced-get-bytes", "--origin-timeout-ms",
            "--max-objects"));
        sections.put("Requests, connections and shutdown", List.of("--memory-budget-mb", "--max-connections",
            "--max-connections-per-address", "--request-read-timeout-ms", "--max-ranges", "--max-body-kb",
            "--max-key-length", "--prefetch-queue", "--prefetch-threads", "--shutdown-grace-seconds",
            "--shutdown-unready-seconds"));
        sections.put("Logs and counters", List.of("--log-format", "--access-log", "--range-counters-file",
            "--server-counters-file"));
        sections.put("Configuration and help", List.of(EnvironmentDefaults.CONFIG, "--help", "--version"));
        return sections;
    }

    /** {@code --help}'s option list, section by section ({@link #HELP_SECTIONS}). */
    private static String sectionedOptionList(final CommandLine.Help help)
    {
        final StringBuilder out = new StringBuilder();
        for (final Map.Entry<String, List<String>> section : HELP_SECTIONS.entrySet())
        {
            final CommandLine.Help.Layout layout = help.createDefaultLayout();
            for (final String name : section.getValue())
            {
                layout.addOption(help.commandSpec().findOption(name), help.createDefaultParamLabelRenderer());
            }
            out.append(System.lineSeparator()).append(section.getKey()).append(':').append(System.lineSeparator())
                .append(layout);
        }
        return out.toString();
    }

    /** The engine's settings ({@link RangeCacheBuilder}'s method names) each engine flag sets. */
    static final Map<String, String> ENGINE_FLAGS = Map.of(
        "blockSize", "--block-size-kb",
        "fetchPermits", "--fetch-permits",
        "demandReservedPermits", "--demand-reserved-permits",
        "maxCoalescedGetBytes", "--max-coalesced-get-bytes",
        "originTimeout", "--origin-timeout-ms",
        "maxObjects", "--max-objects");

    /** The tiered store's settings ({@link TieredBlockStore.Context}'s method names) each store flag sets. */
    static final Map<String, String> STORE_FLAGS = Map.of(
        "blockSize", "--block-size-kb",
        "ramCapacityBytes", "--ram-mb",
        "ssdCapacityBytes", "--disk-mb",
        "ssdScrubBytesPerSecond", "--ssd-scrub-mb-per-s",
        "ssdReadThreads", "--ssd-read-threads",
        "ssdOpenFiles", "--ssd-open-files");

    /** The HTTP front's settings ({@link L2HttpServer.Context}'s method names) each server flag sets. */
    static final Map<String, String> SERVER_FLAGS = Map.ofEntries(
        Map.entry("memoryBudgetBytes", "--memory-budget-mb"),
        Map.entry("maxKeyLength", "--max-key-length"),
        Map.entry("maxRanges", "--max-ranges"),
        Map.entry("maxBodyBytes", "--max-body-kb"),
        Map.entry("maxConnections", "--max-connections"),
        Map.entry("maxConnectionsPerAddress", "--max-connections-per-address"),
        Map.entry("requestReadTimeout", "--request-read-timeout-ms"),
        Map.entry("prefetchQueueCapacity", "--prefetch-queue"),
        Map.entry("prefetchThreads", "--prefetch-threads"),
        Map.entry("ioThreads", "--io-threads"),
        Map.entry("shutdownGrace", "--shutdown-grace-seconds"),
        Map.entry("unreadyDelay", "--shutdown-unready-seconds"));

    /** How long a shutdown during the start waits for it to stop before it removes the temporary directory. */
    private static final long STOP_DURING_STARTUP_WAIT_MS = 5_000;

    private final CountDownLatch stopped = new CountDownLatch(1);
    private final CountDownLatch startReturned = new CountDownLatch(1);
    private volatile ServerProgram program;
    private volatile boolean stopRequested;
    private volatile boolean startFailed;
    private volatile Path temporaryDisk;

    /**
     * Runs the program.
     *
     * @param args the command line.
     */
    public static void main(final String[] args)
    {
        final Map<String, String> env = System.getenv();
        System.exit(commandLine(env, EnvironmentDefaults.configFileOf(args, env)).execute(args));
    }

    /**
     * A command line wired to an environment, with errors naming both the flag and its variable.
     *
     * @param env the environment.
     * @return the command line.
     */
    public static CommandLine commandLine(final Map<String, String> env)
    {
        return commandLine(env, null);
    }

    /**
     * A command line wired to an environment and a config file (found with
     * {@link EnvironmentDefaults#configFileOf}, since defaults are set before the arguments are parsed).
     *
     * @param env        the environment.
     * @param configFile the {@code --config} file, or null.
     * @return the command line.
     */
    public static CommandLine commandLine(final Map<String, String> env, final Path configFile)
    {
        final EnvironmentDefaults defaults = new EnvironmentDefaults(env, configFile);
        final OffcacheServerCommand command = new OffcacheServerCommand();
        command.env = Map.copyOf(env);
        command.defaults = defaults;
        final CommandLine commandLine = new CommandLine(command);
        commandLine.setDefaultValueProvider(defaults);
        commandLine.getHelpSectionMap().put(CommandLine.Model.UsageMessageSpec.SECTION_KEY_OPTION_LIST,
            OffcacheServerCommand::sectionedOptionList);
        commandLine.setCaseInsensitiveEnumValuesAllowed(true);
        commandLine.setParameterExceptionHandler((ex, args) ->
        {
            final PrintWriter err = ex.getCommandLine().getErr();
            String message = ex.getMessage();
            // a value given on the command line is the flag's, whatever the environment or the file say
            final boolean onCommandLine = ex.getArgSpec() instanceof CommandLine.Model.OptionSpec option &&
                isGiven(option, args);
            if (!onCommandLine && null != ex.getArgSpec() && defaults.isSet(ex.getArgSpec()))
            {
                message += " (set by environment variable " + EnvironmentDefaults.variableOf(ex.getArgSpec()) + ")";
            }
            else if (!onCommandLine && null != ex.getArgSpec() && defaults.isSetByFile(ex.getArgSpec()))
            {
                message += " (set in " + defaults.configFile() + ")";
            }
            err.println("offcache-server: " + message);
            err.println("Try 'offcache-server --help'.");
            return ex.getCommandLine().getCommandSpec().exitCodeOnInvalidInput();
        });
        commandLine.setExecutionExceptionHandler((ex, cl, parsed) ->
        {
            if (ex instanceof StartupException)
            {
                cl.getErr().println("offcache-server: " + ex.getMessage());
                cl.getErr().flush();
                return cl.getCommandSpec().exitCodeOnInvalidInput();
            }
            throw ex;
        });
        return commandLine;
    }

    /** Whether the command line gives an option ({@code --flag VALUE} or {@code --flag=VALUE}). */
    private static boolean isGiven(final CommandLine.Model.OptionSpec option, final String[] args)
    {
        for (final String arg : args)
        {
            for (final String name : option.names())
            {
                if (arg.equals(name) || arg.startsWith(name + "="))
                {
                    return true;
                }
            }
        }
        return false;
    }

    @Override
    public Integer call() throws Exception
    {
        // before the first logger exists (nothing logs while the flags are parsed); an operator's own file wins
        if (null == System.getProperty("logback.configurationFile"))
        {
            System.setProperty("logback.configurationFile", logFormat.configuration());
        }
        if (accessLog)
        {
            System.setProperty(ACCESS_LOG_LEVEL_PROPERTY, "INFO");
        }
        // before the start, so a signal while it runs (the RAM tier's pre-touch takes seconds per GiB) still cleans up
        Runtime.getRuntime().addShutdownHook(new Thread(this::stopOnSignal, "offcache-shutdown"));
        try
        {
            start();
        }
        catch (final StoppedDuringStartup ex)
        {
            // the shutdown hook reports it and the JVM exits with the signal's status
            return 0;
        }
        finally
        {
            startReturned.countDown();
        }
        stopped.await();
        return 0;
    }

    /**
     * The shutdown hook (SIGTERM, SIGINT, or an exit): closes the running program; during the start, it asks the
     * start to stop, waits for it a while (it stops at its next step; the RAM tier's allocation is one step), prints
     * one line and removes the temporary SSD directory, whether or not the start came back.
     */
    private void stopOnSignal()
    {
        stopRequested = true;
        try
        {
            startReturned.await(STOP_DURING_STARTUP_WAIT_MS, TimeUnit.MILLISECONDS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        final ServerProgram running = program;
        if (null != running)
        {
            running.close();
        }
        else if (!startFailed)
        {
            final Path disk = temporaryDisk;
            final PrintWriter err = spec.commandLine().getErr();
            err.println("offcache-server: stopped during start-up, before serving" + (null == disk ? "" :
                "; removed the temporary SSD directory " + disk));
            err.flush();
            if (null != disk)
            {
                ServerProgram.deleteTree(disk);
            }
        }
        stopped.countDown();
    }

    /** A start that a shutdown (a signal) asked to stop: what it had made is released. */
    private static final class StoppedDuringStartup extends RuntimeException
    {
        private static final long serialVersionUID = 1L;

        StoppedDuringStartup()
        {
            super("stopped during start-up", null, false, false);
        }
    }

    /** Throws when a shutdown asked the start to stop (also between the start's own steps in ServerProgram). */
    void stopIfRequested()
    {
        if (stopRequested)
        {
            throw new StoppedDuringStartup();
        }
    }

    /**
     * Checks the options and starts the server (without waiting for it to stop).
     *
     * @return the running program; the caller closes it.
     * @throws Exception when the options are invalid or the server cannot start.
     */
    public ServerProgram start() throws Exception
    {
        try
        {
            return startChecked();
        }
        catch (final StoppedDuringStartup ex)
        {
            throw ex;
        }
        catch (final Exception | Error ex)
        {
            startFailed = true;
            throw ex;
        }
    }

    private ServerProgram startChecked() throws Exception
    {
        final FlagChecks checks = new FlagChecks(this, defaults, env);
        checks.validate();
        checks.warnAboutUnknownVariables();
        final boolean embedded = isEmbedded();
        final OriginFactory origins = new OriginFactory(this);
        origins.prepareDirectories();
        String exampleKey = null;
        ApiKeys keys = null;
        if (!disableAuth)
        {
            if (null != apiKeys && !apiKeys.isBlank())
            {
                keys = ApiKeys.parse(apiKeys);
            }
            else if (embedded)
            {
                exampleKey = HexFormat.of().formatHex(randomBytes(16));
                keys = ApiKeys.parse(exampleKey);
            }
            else
            {
                throw invalid("--api-keys", "no API keys: set OFFCACHE_API_KEYS, or pass --disable-auth");
            }
        }
        S3Credentials s3Keys = null;
        if (s3ApiEnabled() && !disableAuth)
        {
            s3Keys = null != s3ApiKeys ? S3Credentials.parse(s3ApiKeys) : S3Credentials.generate(new SecureRandom());
        }
        // Checked before anything is made, so a refused start leaves nothing behind.
        final long storeBytes = ServerProgram.storeContext(this).directMemoryBytes();
        DirectMemory.check(storeBytes, ramMb);
        new MachineMemory().check(storeBytes, ramMb);
        final boolean diskIsTemp = null == diskPath;
        if (!diskIsTemp)
        {
            requireWritableDirectory(diskPath);
        }
        final Path disk = diskIsTemp ? Files.createTempDirectory("offcache-ssd-") : diskPath;
        temporaryDisk = diskIsTemp ? disk : null;
        final ServerProgram started;
        final ObjectStore origin;
        try
        {
            stopIfRequested();
            origin = origins.create();
            started = ServerProgram.start(this, keys, exampleKey, origin, disk, diskIsTemp, s3Keys);
            if (stopRequested)
            {
                started.close();
                throw new StoppedDuringStartup();
            }
        }
        catch (final Exception | Error ex)
        {
            if (diskIsTemp)
            {
                ServerProgram.deleteTree(disk);
            }
            if (ex instanceof ListenFailedException failed)
            {
                final String flag = failed.s3Api() ? "--s3-api-listen" : "--listen";
                throw new StartupException(flag, failed.getMessage() + (failed.inUse() ?
                    ": stop the process listening there or choose another port (port 0 picks a free one)" :
                    ": choose another " + flag + " HOST:PORT"), failed);
            }
            throw ex;
        }
        program = started;
        new StartupBanner(this, started, origin, disk, diskIsTemp, exampleKey, s3Keys).print(
            spec.commandLine().getOut());
        return started;
    }

    /** The SSD tier's directory must exist (or be creatable) and take a new file: file modes alone do not tell. */
    private static void requireWritableDirectory(final Path dir)
    {
        try
        {
            Files.createDirectories(dir);
            Files.delete(Files.createTempFile(dir, ".offcache-write-check-", ".tmp"));
        }
        catch (final IOException | SecurityException ex)
        {
            throw new StartupException("--disk-path", dir + " is not a writable directory (" + describe(ex) +
                "): create it writable for this user or choose another --disk-path", ex);
        }
    }

    /**
     * A file-system failure in words, naming its file once at most (an exception's message is often the path).
     *
     * @param ex the failure.
     * @return the words.
     */
    static String describe(final Exception ex)
    {
        if (ex instanceof AccessDeniedException)
        {
            return "permission denied";
        }
        if (ex instanceof NoSuchFileException)
        {
            return "no such file";
        }
        if (ex instanceof FileAlreadyExistsException || ex instanceof NotDirectoryException)
        {
            return "a file is in the way: " + ex.getMessage();
        }
        if (ex instanceof FileSystemException fs && null != fs.getReason())
        {
            return fs.getReason().toLowerCase(Locale.ROOT) + ": " + fs.getFile();
        }
        return ex.toString();
    }

    private static byte[] randomBytes(final int count)
    {
        final byte[] bytes = new byte[count];
        new SecureRandom().nextBytes(bytes);
        return bytes;
    }

    /**
     * The running program, once {@link #start()} returned.
     *
     * @return the program or null.
     */
    public ServerProgram program()
    {
        return program;
    }
}
