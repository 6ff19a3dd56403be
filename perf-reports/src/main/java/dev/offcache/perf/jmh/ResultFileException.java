package dev.offcache.perf.jmh;

import java.nio.file.Path;

/**
 * An input file that cannot be used (a JMH result file or a measurement file): missing, empty, not JSON, or not in
 * its format. The message names the file and what is wrong with it; the command line shows it and exits with 1.
 */
public final class ResultFileException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param file    the file.
     * @param problem what is wrong, completing "FILE: ...".
     */
    public ResultFileException(final Path file, final String problem)
    {
        super(file + ": " + problem);
    }

    /**
     * Creates the exception with its cause.
     *
     * @param file    the file.
     * @param problem what is wrong.
     * @param cause   the underlying failure.
     */
    public ResultFileException(final Path file, final String problem, final Throwable cause)
    {
        super(file + ": " + problem, cause);
    }
}
