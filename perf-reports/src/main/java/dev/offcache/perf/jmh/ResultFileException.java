package dev.offcache.perf.jmh;

import java.nio.file.Path;

/**
 * A JMH result file that cannot be used: missing, empty, not JSON, or not in JMH's result format. The message names
 * the file and what is wrong with it.
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
