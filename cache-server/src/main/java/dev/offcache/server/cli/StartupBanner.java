package dev.offcache.server.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;

import dev.offcache.range.origin.ObjectStore;
import dev.offcache.server.s3.BucketOrigins;
import dev.offcache.server.s3.S3Credentials;

/**
 * What {@code offcache-server} prints on stdout once it serves: the address, transport, origin and SSD tier; for the
 * embedded default the API key generated for the run with ready {@code curl} lines; and the S3 API's address with,
 * for generated keys, a ready AWS CLI line. Scripts and the docs wait for its first line ({@code listening on}).
 *
 * @param options    the parsed flags.
 * @param started    the running program.
 * @param origin     its origin.
 * @param disk       the SSD tier's directory.
 * @param diskIsTemp whether that directory is removed at exit.
 * @param exampleKey the API key generated for this run, or null.
 * @param s3Keys     the S3 API's keys, or null when it has none.
 */
record StartupBanner(
    OffcacheServerCommand options,
    ServerProgram started,
    ObjectStore origin,
    Path disk,
    boolean diskIsTemp,
    String exampleKey,
    S3Credentials s3Keys)
{
    /**
     * Prints the banner and flushes.
     *
     * @param out where to.
     */
    void print(final PrintWriter out)
    {
        final String base = "http://" + options.listenHost() + ":" + started.server().address().getPort();
        out.println("offcache-server listening on " + base + " (transport " + started.server().transport() +
            ", origin " + (origin instanceof BucketOrigins ? origin.toString() : origin.namespace()) +
            ", SSD tier " + disk + (diskIsTemp ? ", temporary" : "") + ")");
        if (null != exampleKey)
        {
            out.println("API key for this run: " + exampleKey);
            out.println("Try it:");
            out.println("  curl -H 'Authorization: Bearer " + exampleKey + "' -r 0-99 " + base + "/obj/" +
                SampleObjects.HELLO);
            out.println("  curl -s -H 'Authorization: Bearer " + exampleKey + "' -o /dev/null -w '%{http_code} " +
                "%{size_download}\\n' " + base + "/obj/" + SampleObjects.RANDOM);
        }
        printS3Api(out);
        out.flush();
    }

    /** The S3 API's address and, with generated keys, a ready AWS CLI line for a sample object. */
    private void printS3Api(final PrintWriter out)
    {
        if (null == started.server().s3Address())
        {
            return;
        }
        final String endpoint = "http://" + options.s3ApiHost() + ":" + started.server().s3Address().getPort();
        final boolean generated = null != s3Keys && null == options.s3ApiKeys;
        final List<String> served = options.servedBucketNames();
        out.println("S3 API on " + endpoint + (served.size() == 1 ? ", bucket " + served.get(0) : ", buckets " +
            String.join(", ", served)) + " (" + (options.disableAuth ?
            "authentication DISABLED" : "AWS Signature V4" + (generated ? ", access key generated for this run" :
            "")) + ")");
        if (generated)
        {
            final String id = s3Keys.accessKeyIds().get(0);
            out.println("Try it with the AWS CLI:");
            out.println("  AWS_ACCESS_KEY_ID=" + id + " AWS_SECRET_ACCESS_KEY=" + s3Keys.secretOf(id) +
                " AWS_DEFAULT_REGION=" + options.s3ApiRegionName() + " aws --endpoint-url " + endpoint +
                " s3api get-object --bucket " + options.s3ApiBucketName() + " --key " + SampleObjects.HELLO +
                " --range bytes=0-99 /dev/stdout");
        }
    }
}
