package dev.offcache.demo;

import java.util.Arrays;

/**
 * {@code offcache-demo s3|spark}: the entry point of the demo launcher.
 */
public final class DemoCommand
{
    private DemoCommand()
    {
    }

    /**
     * Runs {@code s3} ({@link LocalS3Origin}) or {@code spark} ({@link SparkSample}) and exits with its status.
     *
     * @param args the command and its arguments.
     * @throws Exception when the command fails.
     */
    public static void main(final String[] args) throws Exception
    {
        final String[] rest = args.length == 0 ? args : Arrays.copyOfRange(args, 1, args.length);
        final String command = args.length == 0 ? "" : args[0];
        final int status = switch (command)
        {
            case "s3" -> LocalS3Origin.run(rest, System.out);
            case "spark" -> SparkSample.run(rest, System.out);
            default ->
            {
                System.err.println("usage: offcache-demo s3 [--port N]      a local S3 origin with a sample Parquet " +
                    "dataset (until Ctrl-C)");
                System.err.println("       offcache-demo spark [--endpoint URL] [--runs N]   a Spark job reading it " +
                    "through offcache");
                yield "--help".equals(command) || "-h".equals(command) ? 0 : 2;
            }
        };
        System.exit(status);
    }
}
