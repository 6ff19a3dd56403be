package dev.offcache.server.http;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;

/**
 * The {@code POST /prefetch} endpoint: one JSON object a line, {@code {"key":K,"size":N,"ranges":[[s,e],...]}}, each
 * queued for the prefetch workers ({@link PrefetchQueue}). Stateless; it answers through the connection's
 * {@link RequestHandler}.
 */
final class PrefetchEndpoint
{
    private PrefetchEndpoint()
    {
    }

    /**
     * Answers {@code POST /prefetch}: queues each line's object (or its ranges) for warming, and says how many were
     * accepted, rejected (a malformed line) and dropped (the queue was full).
     */
    static void serve(
        final RequestHandler handler, final ChannelHandlerContext ctx, final FullHttpRequest request,
        final boolean keepAlive)
    {
        final ServerResources resources = handler.resources();
        final String body = request.content().toString(StandardCharsets.UTF_8);
        int accepted = 0;
        int rejected = 0;
        int dropped = 0;
        for (final String line : body.split("\n"))
        {
            if (line.isBlank())
            {
                continue;
            }
            final PrefetchQueue.Request entry = parseLine(resources, line);
            if (null == entry)
            {
                rejected++;
            }
            else if (resources.prefetch().offer(entry))
            {
                accepted++;
            }
            else
            {
                dropped++;
            }
        }
        resources.metrics().prefetchAccepted.getAndAdd(accepted);
        resources.metrics().prefetchRejected.getAndAdd(rejected);
        resources.metrics().prefetchDropped.getAndAdd(dropped);
        final ObjectNode result = resources.json().createObjectNode()
            .put("accepted", accepted).put("rejected", rejected).put("dropped", dropped);
        handler.respond(ctx, Endpoint.PREFETCH, HttpResponseStatus.ACCEPTED, result.toString(), keepAlive);
    }

    /** One line of the body, or null when it breaks a rule (the whole line is rejected, never a part of it). */
    private static PrefetchQueue.Request parseLine(final ServerResources resources, final String line)
    {
        try
        {
            final JsonNode node = resources.json().readTree(line);
            if (null == node || !node.isObject())
            {
                return null;
            }
            final JsonNode key = node.get("key");
            final JsonNode size = node.get("size");
            if (null == key || !key.isTextual() || null == size || !size.isIntegralNumber() ||
                !size.canConvertToLong() || size.longValue() < 0 ||
                null != resources.keyPolicy().problemWith(key.textValue()))
            {
                return null;
            }
            final JsonNode ranges = node.get("ranges");
            final List<long[]> parsed = new ArrayList<>();
            if (null == ranges || ranges.isNull())
            {
                parsed.add(new long[] {0, size.longValue()});
            }
            else
            {
                if (!ranges.isArray() || ranges.size() > resources.maxRanges())
                {
                    return null;
                }
                for (int i = 0; i < ranges.size(); i++)
                {
                    final long[] pair = RangesBody.pair(ranges.get(i), i);
                    if (pair[1] > size.longValue())
                    {
                        return null;
                    }
                    parsed.add(pair);
                }
            }
            return new PrefetchQueue.Request(key.textValue(), List.copyOf(parsed));
        }
        catch (final Exception ex)
        {
            return null;
        }
    }
}
