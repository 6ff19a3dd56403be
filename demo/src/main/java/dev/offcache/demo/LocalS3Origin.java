package dev.offcache.demo;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

import dev.offcache.testkit.s3.OriginCounters;
import dev.offcache.testkit.s3.S3ProxyServer;

/**
 * {@code offcache-demo s3}: a local S3 origin for trying offcache on a laptop. S3Proxy in this process on
 * 127.0.0.1 (in memory: everything is gone when it stops), one bucket, {@value #BUCKET}, holding the
 * {@link SampleDataset}; it prints how to reach it (endpoint, keys, an AWS CLI line, the cache server and Spark
 * sample over it), then one line of origin traffic (GETs, bytes, HEADs, lists) whenever that changed, so the cache's
 * effect is visible. Runs until SIGINT/SIGTERM.
 */
public final class LocalS3Origin
{
    /** The bucket. */
    public static final String BUCKET = "lake";
    /** The default port (--port). */
    public static final int DEFAULT_PORT = 9100;

    private LocalS3Origin()
    {
    }

    /**
     * Starts the origin with the sample dataset.
     *
     * @param port the port on 127.0.0.1 (0: any free one).
     * @return the running proxy, holding the dataset.
     * @throws Exception when it does not start.
     */
    public static S3ProxyServer start(final int port) throws Exception
    {
        final S3ProxyServer proxy = S3ProxyServer.startOn(port, BUCKET);
        final Path scratch = Files.createTempDirectory("offcache-demo-");
        try
        {
            for (final Map.Entry<String, byte[]> file : SampleDataset.generate(scratch).entrySet())
            {
                proxy.put(BUCKET, file.getKey(), file.getValue());
            }
        }
        catch (final Exception ex)
        {
            proxy.close();
            throw ex;
        }
        finally
        {
            Files.deleteIfExists(scratch);
        }
        proxy.counters().reset();
        return proxy;
    }

    static int run(final String[] args, final PrintStream out) throws Exception
    {
        int port = DEFAULT_PORT;
        for (int i = 0; i < args.length; i++)
        {
            if ("--port".equals(args[i]) && i + 1 < args.length)
            {
                port = Integer.parseInt(args[++i]);
            }
            else
            {
                System.err.println("offcache-demo s3: unknown argument " + args[i] + " (usage: offcache-demo s3 " +
                    "[--port N], default " + DEFAULT_PORT + ")");
                return 2;
            }
        }
        final S3ProxyServer proxy = start(port);
        final CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() ->
        {
            proxy.close();
            stopped.countDown();
        }, "offcache-demo-stop"));
        final String endpoint = proxy.endpoint().toString();
        final String keys = "AWS_ACCESS_KEY_ID=" + S3ProxyServer.ACCESS_KEY + " AWS_SECRET_ACCESS_KEY=" +
            S3ProxyServer.SECRET_KEY + " AWS_DEFAULT_REGION=" + S3ProxyServer.REGION;
        out.println("offcache-demo: local S3 origin on " + endpoint + " (S3Proxy, in memory), bucket " + BUCKET +
            ", region " + S3ProxyServer.REGION + ", access key " + S3ProxyServer.ACCESS_KEY + ", secret key " +
            S3ProxyServer.SECRET_KEY);
        out.println("sample dataset: s3://" + BUCKET + "/" + SampleDataset.PREFIX + " (" + SampleDataset.FILES +
            " Parquet files, " + SampleDataset.FILES * SampleDataset.ROWS_PER_FILE +
            " rows: id, day, country, amount)");
        out.println("Try it:");
        out.println("  " + keys + " aws --endpoint-url " + endpoint + " s3 ls s3://" + BUCKET + "/" +
            SampleDataset.PREFIX);
        out.println("  OFFCACHE_S3_ACCESS_KEY=" + S3ProxyServer.ACCESS_KEY + " OFFCACHE_S3_SECRET_KEY=" +
            S3ProxyServer.SECRET_KEY + " ./offcache-server --s3-endpoint " + endpoint + " --s3-bucket " + BUCKET);
        out.println("  ./offcache-demo spark --endpoint " + endpoint);
        out.println("(writes with the AWS CLI need AWS_REQUEST_CHECKSUM_CALCULATION=when_required)");
        out.flush();
        String last = "";
        while (!stopped.await(1, java.util.concurrent.TimeUnit.SECONDS))
        {
            final String now = traffic(proxy.counters());
            if (!now.equals(last))
            {
                out.println(now);
                out.flush();
                last = now;
            }
        }
        return 0;
    }

    static String traffic(final OriginCounters counters)
    {
        return "origin: GETs=" + counters.gets() + " bytes=" + counters.bytes() + " HEADs=" + counters.heads() +
            " lists=" + counters.lists();
    }
}
