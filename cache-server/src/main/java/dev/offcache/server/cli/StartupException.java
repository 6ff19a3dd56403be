package dev.offcache.server.cli;

/**
 * The server cannot start with these settings although each is well formed: its message is one line that names the
 * flag (and its variable) and says what to change. The program prints it and exits with status 2, as for an
 * invalid flag, after releasing whatever it had made (a temporary SSD directory, the origin, listeners).
 */
public final class StartupException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    /**
     * A failure with a flag to blame.
     *
     * @param flag    the flag, e.g. {@code --listen}.
     * @param problem what is wrong and the fix.
     * @param cause   the underlying error, or null.
     */
    StartupException(final String flag, final String problem, final Throwable cause)
    {
        super(flag + " (env " + EnvironmentDefaults.variableOf(flag) + "): " + problem, cause);
    }
}
