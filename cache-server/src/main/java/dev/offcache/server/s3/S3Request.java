package dev.offcache.server.s3;

import java.util.List;

/**
 * One parsed S3 request: the operation, the bucket and key it addresses (decoded), and its query. Immutable.
 *
 * @param operation the operation.
 * @param bucket    the bucket, {@code null} for {@code GET /}.
 * @param key       the decoded object key, {@code null} for bucket and service operations.
 * @param rawPath   the path as sent (what the signature covers).
 * @param query     the decoded query parameters, in the order sent.
 */
public record S3Request(
    S3Operation operation, String bucket, String key, String rawPath, List<AwsUriEncoding.QueryParameter> query)
{
    /**
     * The first value of a query parameter.
     *
     * @param name the name.
     * @return the value ({@code ""} for a parameter without one), or {@code null} when absent.
     */
    public String parameter(final String name)
    {
        return parameter(query, name);
    }

    /**
     * The first value of a query parameter.
     *
     * @param query the parameters.
     * @param name  the name.
     * @return the value, or {@code null} when absent.
     */
    public static String parameter(final List<AwsUriEncoding.QueryParameter> query, final String name)
    {
        for (final AwsUriEncoding.QueryParameter parameter : query)
        {
            if (parameter.name().equals(name))
            {
                return parameter.value();
            }
        }
        return null;
    }
}
