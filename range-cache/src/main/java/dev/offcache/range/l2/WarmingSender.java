package dev.offcache.range.l2;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.agrona.concurrent.Agent;
import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;

import dev.offcache.core.agent.SignalledIdleStrategy;

/**
 * Write-time warming: writers offer {@code (key, size)} notices to a bounded lock-free queue (a full queue drops and
 * counts, never waits); this agent drains it in batches into {@code POST /prefetch} NDJSON requests, one in flight
 * at a time, sent asynchronously. Nothing is sent while the breaker is not closed: a prefetch never probes.
 *
 * <p>The agent sleeps until there is something to do: every accepted offer and the completion of the request in
 * flight signal its {@link #idleStrategy()} (a {@link SignalledIdleStrategy}), so an idle client's warming thread
 * costs no CPU (it used to wake every millisecond), and a notice is sent as soon as it is offered.
 */
final class WarmingSender implements Agent
{
    /** A park without a signal never lasts longer (a safety net: no signal is lost). */
    private static final long MAX_PARK_NS = TimeUnit.SECONDS.toNanos(1);

    private final L2Client client;
    private final L2ClientCounters metrics;
    private final ManyToOneConcurrentArrayQueue<Notice> queue;
    private final int batchKeys;
    private final Notice[] batch;
    private final SignalledIdleStrategy idle = new SignalledIdleStrategy(MAX_PARK_NS);
    private final AtomicLong dutyCycles = new AtomicLong();
    private CompletableFuture<String> inFlight;
    private int inFlightKeys;

    WarmingSender(final L2Client client, final L2ClientCounters metrics, final int capacity, final int batchKeys)
    {
        this.client = client;
        this.metrics = metrics;
        this.queue = new ManyToOneConcurrentArrayQueue<>(capacity);
        this.batchKeys = batchKeys;
        this.batch = new Notice[batchKeys];
    }

    /** Called by writers: never blocks. */
    boolean offer(final String key, final long size)
    {
        metrics.increment(L2ClientCounters.Counter.WARM_NOTIFIED);
        if (queue.offer(new Notice(key, size)))
        {
            idle.signal();
            return true;
        }
        metrics.increment(L2ClientCounters.Counter.WARM_DROPPED_QUEUE_FULL);
        return false;
    }

    /** The strategy the agent's runner must idle with: offers and completions wake it. */
    SignalledIdleStrategy idleStrategy()
    {
        return idle;
    }

    /** Duty cycles run so far (tests: an idle sender runs next to none). */
    long dutyCycles()
    {
        return dutyCycles.get();
    }

    @Override
    public int doWork()
    {
        dutyCycles.incrementAndGet();
        if (inFlight != null)
        {
            if (!inFlight.isDone())
            {
                return 0;
            }
            inFlight = null;
        }
        int n = 0;
        Notice notice;
        while (n < batchKeys && (notice = queue.poll()) != null)
        {
            batch[n++] = notice;
        }
        if (n == 0)
        {
            return 0;
        }
        if (client.breaker().state() != CircuitBreaker.State.CLOSED)
        {
            metrics.add(L2ClientCounters.Counter.WARM_DROPPED_BREAKER, n);
            clear(n);
            return n;
        }
        final ByteArrayOutputStream body = new ByteArrayOutputStream(n * 64);
        final StringBuilder line = new StringBuilder(128);
        for (int i = 0; i < n; i++)
        {
            line.setLength(0);
            line.append("{\"key\":");
            appendJsonString(line, batch[i].key);
            line.append(",\"size\":").append(batch[i].size).append("}\n");
            final byte[] bytes = line.toString().getBytes(StandardCharsets.UTF_8);
            body.write(bytes, 0, bytes.length);
        }
        clear(n);
        final int keys = n;
        inFlightKeys = keys;
        inFlight = client.sendPrefetch(body.toByteArray());
        inFlight.whenComplete((answer, error) ->
        {
            idle.signal();
            if (error != null)
            {
                metrics.add(L2ClientCounters.Counter.WARM_DROPPED_FAILED, keys);
                return;
            }
            final long accepted = field(answer, "accepted");
            if (accepted < 0)
            {
                metrics.add(L2ClientCounters.Counter.WARM_DROPPED_FAILED, keys);
                return;
            }
            metrics.add(L2ClientCounters.Counter.WARM_SENT, accepted);
            metrics.add(L2ClientCounters.Counter.WARM_REFUSED, Math.max(0, keys - accepted));
        });
        return n;
    }

    @Override
    public void onClose()
    {
        final int queued = queue.drain((notice) ->
        {
        });
        final int pending = queued + (inFlight != null && !inFlight.isDone() ? inFlightKeys : 0);
        metrics.add(L2ClientCounters.Counter.WARM_DROPPED_FAILED, pending);
    }

    @Override
    public String roleName()
    {
        return "offcache-l2client-warming";
    }

    private void clear(final int n)
    {
        for (int i = 0; i < n; i++)
        {
            batch[i] = null;
        }
    }

    /** A non-negative integer field of the server's small JSON answer, or -1. */
    static long field(final String json, final String name)
    {
        final String quoted = "\"" + name + "\"";
        final int at = json.indexOf(quoted);
        if (at < 0)
        {
            return -1;
        }
        int i = json.indexOf(':', at + quoted.length());
        if (i < 0)
        {
            return -1;
        }
        i++;
        while (i < json.length() && json.charAt(i) == ' ')
        {
            i++;
        }
        long value = 0;
        int digits = 0;
        while (i < json.length() && Character.isDigit(json.charAt(i)) && digits < 18)
        {
            value = value * 10 + (json.charAt(i++) - '0');
            digits++;
        }
        return digits == 0 ? -1 : value;
    }

    static void appendJsonString(final StringBuilder out, final String text)
    {
        out.append('"');
        for (int i = 0; i < text.length(); i++)
        {
            final char c = text.charAt(i);
            if (c == '"' || c == '\\')
            {
                out.append('\\').append(c);
            }
            else if (c < 0x20)
            {
                out.append(String.format("\\u%04x", (int) c));
            }
            else
            {
                out.append(c);
            }
        }
        out.append('"');
    }

    private static final class Notice
    {
        final String key;
        final long size;

        Notice(final String key, final long size)
        {
            this.key = key;
            this.size = size;
        }
    }
}
