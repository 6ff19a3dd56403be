package dev.offcache.tools;

import picocli.CommandLine;

/**
 * The command line every offcache tool runs on: picocli over the tool's command, with errors as one line
 * {@code NAME: message} on stderr and the tools' exit statuses: {@value #UNAVAILABLE} when what was asked (a
 * cluster, L2) did not answer ({@link Unavailable}), 2 for bad arguments (picocli's own errors and
 * {@link IllegalArgumentException}).
 */
public final class ToolCommandLine
{
    /** Exit status when what was asked did not answer. */
    public static final int UNAVAILABLE = 1;

    private ToolCommandLine()
    {
    }

    /**
     * A command line over a tool's command.
     *
     * @param command the annotated command object.
     * @param name    the tool's name, the prefix of its error lines.
     * @return the command line; {@code execute} returns the exit status.
     */
    public static CommandLine of(final Object command, final String name)
    {
        final CommandLine commandLine = new CommandLine(command);
        commandLine.setExecutionExceptionHandler((ex, cl, parsed) ->
        {
            if (ex instanceof Unavailable || ex instanceof IllegalArgumentException)
            {
                cl.getErr().println(name + ": " + ex.getMessage());
                cl.getErr().flush();
                return ex instanceof Unavailable ? UNAVAILABLE : cl.getCommandSpec().exitCodeOnInvalidInput();
            }
            throw ex;
        });
        return commandLine;
    }

    /** What was asked did not answer (exit status {@link #UNAVAILABLE}); the message says what and why. */
    public static class Unavailable extends RuntimeException
    {
        private static final long serialVersionUID = 1L;

        /**
         * Creates one.
         *
         * @param message what did not answer, and why.
         */
        public Unavailable(final String message)
        {
            super(message);
        }
    }

    /** {@code --version}: the tool's name and the build's version, from the jar's manifest when there is one. */
    public static final class Version implements CommandLine.IVersionProvider
    {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public String[] getVersion()
        {
            final String version = ToolCommandLine.class.getPackage().getImplementationVersion();
            return new String[] {spec.name() + " " + (version == null ? "(development build)" : version)};
        }
    }
}
