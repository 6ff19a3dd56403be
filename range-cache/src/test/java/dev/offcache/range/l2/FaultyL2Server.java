package dev.offcache.range.l2;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A deliberately misbehaving stand-in for the L2 server on 127.0.0.1: a raw socket server that parses just enough
 * HTTP to answer {@code GET /obj/{key}} with a Range, {@code HEAD}, {@code POST /ranges/{key}} (framed, with
 * {@code Offcache-Object-Size}) and {@code POST /prefetch}, and misbehaves in the way its current {@link Fault} says.
 * With {@link #slowAnswerMs} it waits that long before answering, sending {@code 102 Processing} every
 * {@link #interimEveryMs} meanwhile when the request asked for it (like the real server while a size is looked up).
 * Objects come from a map of the true bytes (the same bytes the origin serves).
 */
final class FaultyL2Server implements AutoCloseable
{
    /** What the server does with each request. */
    enum Fault
    {
        /** Correct 206 answers, keep-alive. */
        NONE,
        /** Accepts and reads the request, never answers. */
        NEVER_ANSWER,
        /** Answers bytes that are not HTTP. */
        GARBAGE,
        /** Answers 500. */
        STATUS_500,
        /** 206 without Content-Range. */
        MISSING_CONTENT_RANGE,
        /** 206 whose Content-Range starts one byte late. */
        WRONG_CONTENT_RANGE,
        /** Announces the full length, sends half the body, then ends the response (closes). */
        SHORT_BODY,
        /** Sends half the body, then goes silent with the connection open. */
        STALL_MID_BODY,
        /** Sends half the body, then resets the connection. */
        CLOSE_MID_STREAM,
        /** Sends the body {@link #dripBytes} at a time, one piece every {@link #dripEveryMs}. */
        DRIP,
        /** Each request picks NONE or one of the fast faults at random. */
        RANDOM
    }

    private static final Fault[] FAST = {
        Fault.NONE, Fault.NONE, Fault.GARBAGE, Fault.STATUS_500, Fault.WRONG_CONTENT_RANGE, Fault.SHORT_BODY,
        Fault.CLOSE_MID_STREAM};

    final Map<String, byte[]> objects = new ConcurrentHashMap<>();
    final AtomicInteger requests = new AtomicInteger();
    final AtomicInteger connections = new AtomicInteger();
    final List<String> prefetchBodies = new CopyOnWriteArrayList<>();
    /** Body bytes sent before a mid-body fault (GET or POST /ranges), summed. */
    final AtomicInteger bytesSentBeforeFault = new AtomicInteger();
    volatile Fault fault = Fault.NONE;
    /** Milliseconds to wait before each answer (0: answer at once). */
    volatile long slowAnswerMs;
    /** Interim responses while waiting, every this many ms (0: none). */
    volatile long interimEveryMs;
    final AtomicInteger interimsSent = new AtomicInteger();
    /** {@link Fault#DRIP}: body bytes per piece. */
    volatile int dripBytes = 256;
    /** {@link Fault#DRIP}: milliseconds between pieces. */
    volatile long dripEveryMs = 150;
    final AtomicInteger rangesRequests = new AtomicInteger();

    private final ServerSocket server;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final Thread acceptor;
    private final List<Thread> workers = new CopyOnWriteArrayList<>();
    private volatile boolean closed;

    FaultyL2Server() throws IOException
    {
        server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        acceptor = new Thread(this::acceptLoop, "faulty-l2-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    String url()
    {
        return "http://127.0.0.1:" + server.getLocalPort();
    }

    int port()
    {
        return server.getLocalPort();
    }

    private void acceptLoop()
    {
        while (!closed)
        {
            try
            {
                final Socket socket = server.accept();
                connections.incrementAndGet();
                sockets.add(socket);
                final Thread worker = new Thread(() -> serve(socket), "faulty-l2-conn");
                worker.setDaemon(true);
                workers.add(worker);
                worker.start();
            }
            catch (final IOException ex)
            {
                return;
            }
        }
    }

    private void serve(final Socket socket)
    {
        try (socket)
        {
            final InputStream in = socket.getInputStream();
            final OutputStream out = socket.getOutputStream();
            while (!closed)
            {
                final String head = readHead(in);
                if (head == null)
                {
                    return;
                }
                requests.incrementAndGet();
                if (!answer(head, in, out, socket))
                {
                    return;
                }
            }
        }
        catch (final IOException | InterruptedException ex)
        {
            // the client went away or the test closed us
        }
    }

    private boolean answer(final String head, final InputStream in, final OutputStream out, final Socket socket)
        throws IOException, InterruptedException
    {
        final String[] lines = head.split("\r\n");
        final String[] requestLine = lines[0].split(" ");
        final String method = requestLine[0];
        final String path = requestLine[1];
        String range = null;
        int contentLength = 0;
        boolean interim = false;
        for (final String line : lines)
        {
            final String lower = line.toLowerCase();
            if (lower.startsWith("range:"))
            {
                range = line.substring(6).trim();
            }
            else if (lower.startsWith("content-length:"))
            {
                contentLength = Integer.parseInt(line.substring(15).trim());
            }
            else if (lower.startsWith("offcache-interim:") && lower.endsWith("102"))
            {
                interim = true;
            }
        }
        final byte[] body = in.readNBytes(contentLength);
        final long slow = slowAnswerMs;
        if (slow > 0 && !path.equals("/prefetch"))
        {
            final long every = interimEveryMs;
            final long until = System.nanoTime() + slow * 1_000_000L;
            while (System.nanoTime() < until)
            {
                Thread.sleep(Math.max(1, Math.min(every > 0 ? every : slow,
                    (until - System.nanoTime()) / 1_000_000L)));
                if (interim && every > 0 && System.nanoTime() < until)
                {
                    write(out, "HTTP/1.1 102 Processing\r\n\r\n");
                    interimsSent.incrementAndGet();
                }
            }
        }
        if (method.equals("POST") && path.equals("/prefetch"))
        {
            if (fault == Fault.NEVER_ANSWER)
            {
                Thread.sleep(60_000);
                return false;
            }
            final String text = new String(body, StandardCharsets.UTF_8);
            prefetchBodies.add(text);
            final long lines2 = text.lines().filter((l) -> !l.isBlank()).count();
            final String json = "{\"accepted\":" + lines2 + ",\"rejected\":0,\"dropped\":0}";
            write(out, "HTTP/1.1 202 Accepted\r\nContent-Length: " + json.length() + "\r\n\r\n" + json);
            return true;
        }
        final boolean ranges = method.equals("POST") && path.startsWith("/ranges/");
        final byte[] object = objects.get(path.substring((ranges ? "/ranges/" : "/obj/").length()));
        final Fault fault = this.fault == Fault.RANDOM ?
            FAST[ThreadLocalRandom.current().nextInt(FAST.length)] : this.fault;
        switch (fault)
        {
            case NEVER_ANSWER:
                Thread.sleep(60_000);
                return false;
            case GARBAGE:
                write(out, "\u0000\u0001garbage \r\n\r\nnot http at all");
                return false;
            case STATUS_500:
                write(out, "HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\n\r\n");
                return true;
            default:
                break;
        }
        if (object == null)
        {
            write(out, "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n");
            return true;
        }
        if (method.equals("HEAD"))
        {
            write(out, "HTTP/1.1 200 OK\r\nContent-Length: " + object.length + "\r\n\r\n");
            return true;
        }
        if (ranges)
        {
            rangesRequests.incrementAndGet();
            return answerRanges(new String(body, StandardCharsets.US_ASCII), object, fault, out, socket);
        }
        final String[] bounds = range.substring("bytes=".length()).split("-");
        final int start = Integer.parseInt(bounds[0]);
        if (start >= object.length)
        {
            final String text = "past the end";
            write(out, "HTTP/1.1 416 Range Not Satisfiable\r\nContent-Range: bytes */" + object.length +
                "\r\nContent-Length: " + text.length() + "\r\n\r\n" + text);
            return true;
        }
        final int end = Math.min(Integer.parseInt(bounds[1]), object.length - 1);
        final int length = end - start + 1;
        final String contentRange = fault == Fault.MISSING_CONTENT_RANGE ? "" :
            "Content-Range: bytes " + (fault == Fault.WRONG_CONTENT_RANGE ? start + 1 : start) + "-" + end + "/" +
            object.length + "\r\n";
        write(out, "HTTP/1.1 206 Partial Content\r\n" + contentRange + "Content-Length: " + length + "\r\n\r\n");
        return body(object, start, length, fault, out, socket);
    }

    /** A framed POST /ranges answer: per range an 8-byte little-endian length (clamped to the object), the bytes. */
    private boolean answerRanges(
        final String json, final byte[] object, final Fault fault, final OutputStream out, final Socket socket)
        throws IOException, InterruptedException
    {
        final ByteArrayOutputStream framed = new ByteArrayOutputStream();
        final java.util.regex.Matcher pair = java.util.regex.Pattern.compile("\\[(\\d+),(\\d+)\\]").matcher(json);
        while (pair.find())
        {
            final int start = Integer.parseInt(pair.group(1));
            final int end = Math.min(Integer.parseInt(pair.group(2)), object.length);
            final int length = Math.max(0, end - start);
            for (int i = 0; i < Long.BYTES; i++)
            {
                framed.write((int) ((long) length >>> (8 * i)) & 0xFF);
            }
            framed.write(object, start, length);
        }
        final byte[] all = framed.toByteArray();
        write(out, "HTTP/1.1 200 OK\r\nOffcache-Object-Size: " + object.length + "\r\nContent-Length: " +
            all.length + "\r\n\r\n");
        return body(all, 0, all.length, fault, out, socket);
    }

    /** Sends a body, or half of it and then the mid-body fault; returns whether the connection stays usable. */
    private boolean body(
        final byte[] bytes, final int start, final int length, final Fault fault, final OutputStream out,
        final Socket socket) throws IOException, InterruptedException
    {
        switch (fault)
        {
            case SHORT_BODY:
            case STALL_MID_BODY:
            case CLOSE_MID_STREAM:
                final int half = length / 2;
                out.write(bytes, start, half);
                out.flush();
                bytesSentBeforeFault.addAndGet(half);
                if (fault == Fault.STALL_MID_BODY)
                {
                    Thread.sleep(60_000);
                }
                else if (fault == Fault.CLOSE_MID_STREAM)
                {
                    socket.setSoLinger(true, 0);
                }
                return false;
            case DRIP:
                for (int sent = 0; sent < length; sent += dripBytes)
                {
                    out.write(bytes, start + sent, Math.min(dripBytes, length - sent));
                    out.flush();
                    Thread.sleep(dripEveryMs);
                }
                return true;
            default:
                out.write(bytes, start, length);
                out.flush();
                return true;
        }
    }

    private static void write(final OutputStream out, final String text) throws IOException
    {
        out.write(text.getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
    }

    private static String readHead(final InputStream in) throws IOException
    {
        final ByteArrayOutputStream head = new ByteArrayOutputStream();
        int matched = 0;
        while (matched < 4)
        {
            final int b = in.read();
            if (b < 0)
            {
                return null;
            }
            head.write(b);
            matched = (b == '\r' && (matched == 0 || matched == 2)) || (b == '\n' && (matched == 1 || matched == 3)) ?
                matched + 1 : 0;
        }
        return head.toString(StandardCharsets.ISO_8859_1);
    }

    /** Stops accepting and resets every open connection (a killed server). */
    @Override
    public void close() throws IOException
    {
        closed = true;
        server.close();
        for (final Socket socket : sockets)
        {
            try
            {
                socket.setSoLinger(true, 0);
                socket.close();
            }
            catch (final IOException ignored)
            {
                // already gone
            }
        }
        acceptor.interrupt();
        for (final Thread worker : workers)
        {
            worker.interrupt();
        }
    }
}
