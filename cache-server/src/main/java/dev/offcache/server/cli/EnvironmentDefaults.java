package dev.offcache.server.cli;

import java.util.Locale;
import java.util.Map;

import picocli.CommandLine;

/**
 * Gives every option an environment variable: {@code --memory-budget-mb} reads {@code OFFCACHE_MEMORY_BUDGET_MB}
 * when the flag is absent. The name is derived from the flag, so no option can lack its variable. A flag on the
 * command line wins over the environment, which wins over the built-in default.
 */
public final class EnvironmentDefaults implements CommandLine.IDefaultValueProvider
{
    private final Map<String, String> env;

    /**
     * Reads from an environment.
     *
     * @param env variables, usually {@link System#getenv()}.
     */
    public EnvironmentDefaults(final Map<String, String> env)
    {
        this.env = Map.copyOf(env);
    }

    /**
     * The environment variable of a long option name.
     *
     * @param longName for example {@code --memory-budget-mb}.
     * @return for example {@code OFFCACHE_MEMORY_BUDGET_MB}.
     */
    public static String variableOf(final String longName)
    {
        return "OFFCACHE_" + longName.replaceFirst("^-+", "").replace('-', '_').toUpperCase(Locale.ROOT);
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

    @Override
    public String defaultValue(final CommandLine.Model.ArgSpec spec)
    {
        final String name = variableOf(spec);
        return null == name ? null : env.get(name);
    }
}
