package offtrace;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

/** Records, while on, every dev.offcache method or constructor entered: thread, class, and for an entry with no
 * dev.offcache frame below it on its thread (a "root": work that came to this thread from outside offcache code)
 * the frames that called it. Throwaway measuring tool for issue 17. */
public final class Trace
{
    public static volatile boolean on;
    private static final AtomicLong SEQ = new AtomicLong();
    private static final ConcurrentLinkedQueue<String[]> EVENTS = new ConcurrentLinkedQueue<>();
    private static final StackWalker WALKER = StackWalker.getInstance();

    public static void enter(final String type, final String method)
    {
        if (!on)
        {
            return;
        }
        final String thread = Thread.currentThread().getName();
        final List<String> below = WALKER.walk((frames) -> frames.skip(2).limit(200)
            .map((f) -> f.getClassName() + "." + f.getMethodName()).collect(Collectors.toList()));
        boolean root = true;
        for (final String f : below)
        {
            if (f.startsWith("dev.offcache.") && !f.contains(".lambda$"))
            {
                root = false;
                break;
            }
        }
        final String callers = root ? String.join(" < ", below.subList(0, Math.min(6, below.size()))) : "";
        EVENTS.add(new String[] {Long.toString(SEQ.incrementAndGet()), thread, type, method, root ? "R" : "", callers});
    }

    public static void start()
    {
        EVENTS.clear();
        on = true;
    }

    /** Stops and writes the report to {@code file}. */
    public static void stop(final String file) throws Exception
    {
        on = false;
        final List<String[]> events = new ArrayList<>(EVENTS);
        final Map<String, TreeSet<String>> classesByThread = new TreeMap<>();
        final TreeSet<String> classes = new TreeSet<>();
        try (PrintWriter out = new PrintWriter(Files.newBufferedWriter(Path.of(file))))
        {
            out.println("# root entries (work arriving on a thread from non-offcache code), in order");
            String lastRoot = null;
            int repeats = 0;
            for (final String[] e : events)
            {
                classes.add(e[2]);
                classesByThread.computeIfAbsent(e[1], (t) -> new TreeSet<>()).add(e[2]);
                if ("R".equals(e[4]))
                {
                    final String line = e[1] + " | " + e[2] + "." + e[3] + " | " + e[5];
                    if (line.equals(lastRoot))
                    {
                        repeats++;
                        continue;
                    }
                    if (repeats > 0)
                    {
                        out.println("    (x" + (repeats + 1) + ")");
                    }
                    repeats = 0;
                    lastRoot = line;
                    out.println(e[0] + " " + line);
                }
            }
            if (repeats > 0)
            {
                out.println("    (x" + (repeats + 1) + ")");
            }
            out.println("# thread segments (consecutive events on one thread): thread, events, first .. last");
            int i = 0;
            while (i < events.size())
            {
                int j = i;
                while (j + 1 < events.size() && events.get(j + 1)[1].equals(events.get(i)[1]))
                {
                    j++;
                }
                out.println("S " + events.get(i)[0] + " " + events.get(i)[1] + " (" + (j - i + 1) + ") "
                    + events.get(i)[2] + "." + events.get(i)[3] + " .. " + events.get(j)[2] + "." + events.get(j)[3]);
                i = j + 1;
            }
            final Map<String, Integer> calls = new TreeMap<>();
            for (final String[] e : events)
            {
                calls.merge(e[1] + " | " + e[2] + "." + e[3], 1, Integer::sum);
            }
            out.println("# calls by thread and method");
            calls.forEach((k, v) -> out.println("C " + v + " " + k));
            out.println("# classes by thread");
            classesByThread.forEach((t, c) -> out.println(t + " (" + c.size() + "): " + c));
            out.println("# all classes (" + classes.size() + ")");
            classes.forEach(out::println);
            out.println("# events " + events.size());
        }
    }
}
