package dev.offcache.range.origin;

import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongConsumer;

/**
 * An origin over any HTTP server that honours {@code Range} requests, through {@link HttpClient}: objects are
 * {@code base + key}; sizes come from HEAD's {@code Content-Length}, versions from {@code ETag} (or
 * {@code Last-Modified}). PUT and DELETE pass through; plain HTTP has no listing, so {@link #list(String)} fails.
 *
 * <p>Memory: the body of a ranged GET is copied chunk by chunk into the caller's buffer; nothing is buffered
 * whole. A server that ignores {@code Range} (answers 200 to a ranged GET) is an error unless the range starts at 0.
 */
public final class HttpOrigin extends RangedGetOrigin
{
    private static final AtomicInteger CLIENT_ID = new AtomicInteger();

    private final URI base;
    private final String namespace;
    private final HttpClient client;
    private final ExecutorService executor;
    private final Duration requestTimeout;

    /**
     * Creates an instance.
     *
     * @param base           the URI objects are under; a trailing slash is added if missing.
     * @param requestTimeout deadline of each request.
     */
    public HttpOrigin(final URI base, final Duration requestTimeout)
    {
        final String text = base.toString();
        this.base = URI.create(text.endsWith("/") ? text : text + "/");
        this.namespace = "http:" + this.base;
        this.requestTimeout = requestTimeout;
        final int id = CLIENT_ID.incrementAndGet();
        final AtomicInteger threadId = new AtomicInteger();
        this.executor = Executors.newCachedThreadPool((runnable) ->
        {
            final Thread thread = new Thread(runnable, "offcache-http-origin-" + id + "-" + threadId.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
        this.client = HttpClient.newBuilder()
            .executor(executor)
            .connectTimeout(requestTimeout)
            .version(HttpClient.Version.HTTP_1_1)
            .build();
    }

    @Override
    public String namespace()
    {
        return namespace;
    }

    @Override
    public CompletableFuture<Long> size(final String key)
    {
        final HttpRequest request = request(key).method("HEAD", HttpRequest.BodyPublishers.noBody()).build();
        return send(request, HttpResponse.BodyHandlers.discarding(), key, null, "HEAD").thenApply((response) ->
            response.headers().firstValueAsLong("Content-Length").orElseThrow(() ->
                new OriginException("HEAD of '" + key + "' in " + namespace + " has no Content-Length")));
    }

    @Override
    public CompletableFuture<ObjectInfo> stat(final String key)
    {
        final HttpRequest request = request(key).method("HEAD", HttpRequest.BodyPublishers.noBody()).build();
        return send(request, HttpResponse.BodyHandlers.discarding(), key, null, "HEAD").thenApply((response) ->
        {
            final long size = response.headers().firstValueAsLong("Content-Length").orElseThrow(() ->
                new OriginException("HEAD of '" + key + "' in " + namespace + " has no Content-Length"));
            long modified = ObjectInfo.UNKNOWN_TIME;
            final String lastModified = response.headers().firstValue("Last-Modified").orElse(null);
            if (null != lastModified)
            {
                try
                {
                    modified = Math.max(0, ZonedDateTime.parse(lastModified, DateTimeFormatter.RFC_1123_DATE_TIME)
                        .toInstant().toEpochMilli());
                }
                catch (final DateTimeParseException ex)
                {
                    // not an HTTP date: unknown
                }
            }
            return new ObjectInfo(key, size, modified, response.headers().firstValue("ETag").orElse(null));
        });
    }

    @Override
    public CompletableFuture<String> version(final String key)
    {
        final HttpRequest request = request(key).method("HEAD", HttpRequest.BodyPublishers.noBody()).build();
        return send(request, HttpResponse.BodyHandlers.discarding(), key, null, "HEAD").thenApply((response) ->
            response.headers().firstValue("ETag").or(() -> response.headers().firstValue("Last-Modified"))
                .orElseThrow(() -> new OriginException("'" + key + "' in " + namespace + " has no ETag")));
    }

    @Override
    public CompletableFuture<Void> put(final String key, final ByteBuffer source)
    {
        final byte[] body = new byte[source.remaining()];
        source.duplicate().get(body);
        final HttpRequest request = request(key).PUT(HttpRequest.BodyPublishers.ofByteArray(body)).build();
        return send(request, HttpResponse.BodyHandlers.discarding(), key, null, "PUT").thenApply((response) -> null);
    }

    @Override
    public CompletableFuture<Void> delete(final String key)
    {
        final HttpRequest request = request(key).DELETE().build();
        return send(request, HttpResponse.BodyHandlers.discarding(), key, null, "DELETE")
            .handle((response, error) ->
            {
                if (error != null && !(unwrap(error) instanceof ObjectNotFoundException))
                {
                    throw error instanceof CompletionException ? (CompletionException) error :
                        new CompletionException(error);
                }
                return null;
            });
    }

    @Override
    public CompletableFuture<List<String>> list(final String prefix)
    {
        return CompletableFuture.failedFuture(
            new UnsupportedOperationException("an HTTP origin cannot list keys (" + namespace + ")"));
    }

    @Override
    public void close()
    {
        // let completions already queued run, so no caller's future is stranded; then stop what is left
        executor.shutdown();
        try
        {
            if (!executor.awaitTermination(2, TimeUnit.SECONDS))
            {
                executor.shutdownNow();
            }
        }
        catch (final InterruptedException ex)
        {
            executor.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }

    /** One GET; the size from the answer: a 206's or a 416's {@code Content-Range}, a 200's {@code Content-Length}. */
    @Override
    protected CompletableFuture<Integer> get(
        final String key, final long offset, final ByteBuffer destination, final String ifMatch,
        final LongConsumer objectSize)
    {
        if (offset < 0)
        {
            throw new IllegalArgumentException("negative offset " + offset + " for '" + key + "'");
        }
        final int length = destination.remaining();
        if (length == 0)
        {
            return CompletableFuture.completedFuture(0);
        }
        final HttpRequest.Builder builder = request(key)
            .header("Range", "bytes=" + offset + "-" + (offset + length - 1))
            .GET();
        if (ifMatch != null)
        {
            builder.header("If-Match", ifMatch);
        }
        final HttpResponse.BodyHandler<Integer> handler = (info) ->
        {
            if (null != objectSize)
            {
                reportSize(info, objectSize);
            }
            if (info.statusCode() == 206 || (info.statusCode() == 200 && offset == 0))
            {
                return new IntoBuffer(destination, info.statusCode() == 200);
            }
            return HttpResponse.BodySubscribers.replacing(0);
        };
        return client.sendAsync(builder.build(), handler).handle((response, error) ->
        {
            if (error != null)
            {
                throw new OriginException("GET of '" + key + "' in " + namespace + " failed", unwrap(error));
            }
            final int status = response.statusCode();
            if (status == 206 || (status == 200 && offset == 0))
            {
                return response.body();
            }
            if (status == 416)
            {
                return 0;
            }
            if (status == 200)
            {
                throw new OriginException("server ignored the Range of a GET of '" + key + "' in " + namespace);
            }
            throw statusError(status, key, ifMatch, "GET");
        });
    }

    /**
     * Tells the object's size an answer carries: the total of a {@code Content-Range} ({@code bytes S-E/T} of a 206,
     * {@code bytes *}{@code /T} of a 416), or a 200's {@code Content-Length}; nothing when it says {@code *} or
     * nothing parseable.
     */
    private static void reportSize(final HttpResponse.ResponseInfo info, final LongConsumer objectSize)
    {
        final int status = info.statusCode();
        if (status == 200)
        {
            info.headers().firstValueAsLong("Content-Length").ifPresent(objectSize::accept);
            return;
        }
        if (status != 206 && status != 416)
        {
            return;
        }
        final long total = ContentRangeHeader.total(info.headers().firstValue("Content-Range").orElse(null));
        if (total >= 0)
        {
            objectSize.accept(total);
        }
    }

    private <T> CompletableFuture<HttpResponse<T>> send(
        final HttpRequest request, final HttpResponse.BodyHandler<T> handler, final String key, final String ifMatch,
        final String op)
    {
        return client.sendAsync(request, handler).handle((response, error) ->
        {
            if (error != null)
            {
                throw new OriginException(op + " of '" + key + "' in " + namespace + " failed", unwrap(error));
            }
            if (response.statusCode() / 100 != 2)
            {
                throw statusError(response.statusCode(), key, ifMatch, op);
            }
            return response;
        });
    }

    private OriginException statusError(final int status, final String key, final String ifMatch, final String op)
    {
        if (status == 404)
        {
            return new ObjectNotFoundException(namespace, key);
        }
        if (status == 412 && ifMatch != null)
        {
            return new PreconditionFailedException(key, ifMatch);
        }
        return new OriginException(op + " of '" + key + "' in " + namespace + " failed with HTTP " + status);
    }

    private HttpRequest.Builder request(final String key)
    {
        ObjectKeys.validate(key);
        final StringBuilder path = new StringBuilder(key.length() + 8);
        for (final String segment : key.split("/", -1))
        {
            if (path.length() > 0)
            {
                path.append('/');
            }
            path.append(URLEncoder.encode(segment, StandardCharsets.UTF_8).replace("+", "%20"));
        }
        return HttpRequest.newBuilder(base.resolve(path.toString())).timeout(requestTimeout);
    }

    private static Throwable unwrap(final Throwable error)
    {
        Throwable cause = error;
        while (cause instanceof CompletionException && cause.getCause() != null)
        {
            cause = cause.getCause();
        }
        return cause;
    }

    /**
     * Copies a response body into the caller's buffer as it arrives.
     */
    private static final class IntoBuffer implements HttpResponse.BodySubscriber<Integer>
    {
        private final ByteBuffer target;
        private final int start;
        private final boolean truncate;
        private final CompletableFuture<Integer> result = new CompletableFuture<>();
        private Flow.Subscription subscription;

        IntoBuffer(final ByteBuffer destination, final boolean truncate)
        {
            this.target = destination.duplicate();
            this.start = target.position();
            this.truncate = truncate;
        }

        @Override
        public CompletionStage<Integer> getBody()
        {
            return result;
        }

        @Override
        public void onSubscribe(final Flow.Subscription subscription)
        {
            this.subscription = subscription;
            subscription.request(1);
        }

        @Override
        public void onNext(final List<ByteBuffer> chunks)
        {
            for (final ByteBuffer chunk : chunks)
            {
                if (chunk.remaining() > target.remaining())
                {
                    if (!truncate)
                    {
                        subscription.cancel();
                        result.completeExceptionally(
                            new OriginException("origin sent more bytes than the range asked"));
                        return;
                    }
                    chunk.limit(chunk.position() + target.remaining());
                }
                target.put(chunk);
            }
            if (truncate && !target.hasRemaining())
            {
                subscription.cancel();
                result.complete(target.position() - start);
                return;
            }
            subscription.request(1);
        }

        @Override
        public void onError(final Throwable error)
        {
            result.completeExceptionally(error);
        }

        @Override
        public void onComplete()
        {
            result.complete(target.position() - start);
        }
    }
}
