package dev.offcache.range.config;

/**
 * A configuration value a component refuses, naming the setting (its builder or context method, e.g.
 * {@code blockSize}) so a front end can report the flag or property it was read from without re-checking the value.
 */
public final class InvalidSettingException extends IllegalArgumentException
{
    private static final long serialVersionUID = 1L;

    /** The setting's name, as the component's configuration method spells it. */
    private final String setting;

    /**
     * Creates the error.
     *
     * @param setting the setting's name, as the configuration method spells it.
     * @param message what is wrong, starting with the setting's name.
     */
    public InvalidSettingException(final String setting, final String message)
    {
        super(message);
        this.setting = setting;
    }

    /**
     * Returns the refused setting's name.
     *
     * @return the name, as the component's configuration method spells it.
     */
    public String setting()
    {
        return setting;
    }

    /**
     * The error for a setting, its message the setting's name followed by the problem
     * ({@code blockSize must be ..., was 1000}).
     *
     * @param setting the setting's name, as the configuration method spells it.
     * @param problem what is wrong with the value.
     * @return the error, to throw.
     */
    public static InvalidSettingException of(final String setting, final String problem)
    {
        return new InvalidSettingException(setting, setting + " " + problem);
    }
}
