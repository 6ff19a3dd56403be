package dev.offcache.server.cli;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;

import picocli.CommandLine;

/**
 * Gives every option its values from outside the command line: {@code --memory-budget-mb} reads
 * {@code OFFCACHE_MEMORY_BUDGET_MB} when the flag is absent, then the key {@code memory-budget-mb} of the
 * {@code --config} properties file. The names are derived from the flag, so no option can lack them. Precedence:
 * a flag on the command line, then the environment, then the file, then the built-in default.
 */
public final class EnvironmentDefaults implements CommandLine.IDefaultValueProvider
{
    /** The option that names the file; it is read before the command line is parsed. */
    static final String CONFIG = "--config";

    private final Map<String, String> env;
    private final Path configFile;
    private final Properties config = new Properties();
    private String configError;

    /**
     * Reads from an environment only.
     *
     * @param env variables, usually {@link System#getenv()}.
     */
    public EnvironmentDefaults(final Map<String, String> env)
    {
        this(env, null);
    }

    /**
     * Reads from an environment and a properties file.
     *
     * @param env        variables.
     * @param configFile the {@code --config} file, or null for none.
     */
    public EnvironmentDefaults(final Map<String, String> env, final Path configFile)
    {
        this.env = Map.copyOf(env);
        this.configFile = configFile;
        if (null != configFile)
        {
            try (Reader in = Files.newBufferedReader(configFile, StandardCharsets.UTF_8))
            {
                config.load(in);
            }
            catch (final IOException | IllegalArgumentException ex)
            {
                configError = "cannot read " + configFile + ": " + OffcacheServerCommand.describe(ex);
            }
        }
    }

    /**
     * The {@code --config} file named by the arguments ({@code --config FILE} or {@code --config=FILE}), else by
     * {@code OFFCACHE_CONFIG}.
     *
     * @param args the command line.
     * @param env  the environment.
     * @return the file, or null.
     */
    public static Path configFileOf(final String[] args, final Map<String, String> env)
    {
        for (int i = 0; i < args.length; i++)
        {
            if (CONFIG.equals(args[i]) && i + 1 < args.length)
            {
                return Path.of(args[i + 1]);
            }
            if (args[i].startsWith(CONFIG + "="))
            {
                return Path.of(args[i].substring(CONFIG.length() + 1));
            }
        }
        final String fromEnv = env.get(variableOf(CONFIG));
        return null == fromEnv || fromEnv.isBlank() ? null : Path.of(fromEnv);
    }

    /**
     * The environment variable of a long option name.
     *
     * @param longName for example {@code --memory-budget-mb}.
     * @return for example {@code OFFCACHE_MEMORY_BUDGET_MB}.
     */
    public static String variableOf(final String longName)
    {
        return "OFFCACHE_" + keyOf(longName).replace('-', '_').toUpperCase(Locale.ROOT);
    }

    /**
     * The config-file key of a long option name.
     *
     * @param longName for example {@code --memory-budget-mb}.
     * @return for example {@code memory-budget-mb}.
     */
    public static String keyOf(final String longName)
    {
        return longName.replaceFirst("^-+", "");
    }

    /**
     * The environment variable of an option, or {@code null} for positional parameters.
     *
     * @param spec the argument.
     * @return the variable name.
     */
    public static String variableOf(final CommandLine.Model.ArgSpec spec)
    {
        return spec instanceof CommandLine.Model.OptionSpec option ? variableOf(option.longestName()) : null;
    }

    /**
     * Whether the environment sets an option.
     *
     * @param spec the option.
     * @return whether its variable is set.
     */
    public boolean isSet(final CommandLine.Model.ArgSpec spec)
    {
        final String name = variableOf(spec);
        return null != name && env.containsKey(name);
    }

    /**
     * Whether the config file (and not the environment) sets an option.
     *
     * @param spec the option.
     * @return whether its key is in the file and its variable is not set.
     */
    public boolean isSetByFile(final CommandLine.Model.ArgSpec spec)
    {
        return spec instanceof CommandLine.Model.OptionSpec option && !isSet(spec) &&
            config.containsKey(keyOf(option.longestName()));
    }

    /**
     * The config file.
     *
     * @return the file, or null.
     */
    public Path configFile()
    {
        return configFile;
    }

    /**
     * What is wrong with the config file: unreadable, or keys no option has.
     *
     * @param options the command's options.
     * @return the problem, or null.
     */
    public String configProblem(final List<CommandLine.Model.OptionSpec> options)
    {
        if (null != configError)
        {
            return configError;
        }
        final List<String> known = new ArrayList<>();
        for (final CommandLine.Model.OptionSpec option : options)
        {
            known.add(keyOf(option.longestName()));
        }
        final List<String> unknown = new ArrayList<>();
        for (final String key : config.stringPropertyNames())
        {
            if (!known.contains(key) || CONFIG.equals("--" + key))
            {
                unknown.add(key);
            }
        }
        unknown.sort(null);
        return unknown.isEmpty() ? null : configFile + " sets " + String.join(", ", unknown) +
            ", which no option has (keys are flag names without the dashes, e.g. ram-mb=4096)";
    }

    @Override
    public String defaultValue(final CommandLine.Model.ArgSpec spec)
    {
        final String name = variableOf(spec);
        if (null == name)
        {
            return null;
        }
        final String fromEnv = env.get(name);
        if (null != fromEnv)
        {
            return fromEnv;
        }
        return config.getProperty(keyOf(((CommandLine.Model.OptionSpec) spec).longestName()));
    }
}
