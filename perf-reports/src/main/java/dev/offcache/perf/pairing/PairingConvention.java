package dev.offcache.perf.pairing;

import java.util.Collection;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

import dev.offcache.perf.jmh.JmhResult;

/**
 * The convention that tells, from JMH results alone, whether a result measured offcache or a baseline and which
 * results belong together. Documented for benchmark authors in {@code jmh-benchmarks/README.md}.
 *
 * <ol>
 *   <li><b>{@code impl} parameter</b> (preferred): a {@code @Param} named {@code impl}; the value {@code offcache},
 *       or {@code offcache-<variant>} for several variants of ours, is ours; every other value (for example
 *       {@code caffeine}, {@code fileChannel}) is a baseline of that name.</li>
 *   <li><b>Method names</b>: in one class, {@code ours<Op>} is ours and {@code baseline<Op>} or
 *       {@code baseline<Name><Op>} its baseline (for example {@code oursGet} with {@code baselineGet} or
 *       {@code baselineCaffeineGet}, the latter named {@code caffeine}).</li>
 *   <li>Anything else is standalone: reported without a ratio.</li>
 * </ol>
 *
 * Ours and a baseline pair when they share class, operation, mode, thread count and every other parameter.
 */
public final class PairingConvention
{
    /** Name of the parameter that selects the implementation. */
    public static final String IMPL_PARAM = "impl";
    /** The {@code impl} value for offcache itself. */
    public static final String OURS_IMPL = "offcache";
    /** Method-name prefix for ours. */
    public static final String OURS_PREFIX = "ours";
    /** Method-name prefix for the baseline. */
    public static final String BASELINE_PREFIX = "baseline";

    private PairingConvention()
    {
    }

    /**
     * Reads a result's implementation and operation.
     *
     * @param result a JMH result.
     * @return its implementation.
     */
    public static Implementation implementationOf(final JmhResult result)
    {
        final String method = result.method();
        final String impl = result.params().get(IMPL_PARAM);
        if (impl != null)
        {
            return isOursImpl(impl) ?
                new Implementation(Role.OURS, impl, method) : new Implementation(Role.BASELINE, impl, method);
        }
        final String oursOp = operationAfter(method, OURS_PREFIX);
        if (oursOp != null)
        {
            return new Implementation(Role.OURS, OURS_IMPL, oursOp);
        }
        final String baselineOp = operationAfter(method, BASELINE_PREFIX);
        if (baselineOp != null)
        {
            return new Implementation(Role.BASELINE, BASELINE_PREFIX, baselineOp);
        }
        return new Implementation(Role.STANDALONE, method, method);
    }

    /**
     * Whether an {@code impl} value names offcache: {@code offcache} or {@code offcache-<variant>}.
     *
     * @param impl the parameter value.
     * @return true for ours.
     */
    public static boolean isOursImpl(final String impl)
    {
        return OURS_IMPL.equals(impl) || impl.startsWith(OURS_IMPL + "-");
    }

    /**
     * Resolves a method-named baseline against the operations ours has in the same class: {@code baselineGet}
     * is the baseline {@code baseline} of {@code get}; {@code baselineCaffeineGet} is the baseline {@code caffeine}
     * of {@code get} when ours has {@code oursGet} (the longest matching operation wins, so {@code oursMultiGet}
     * and {@code oursGet} do not mix up).
     *
     * @param baseline   a baseline read by {@link #implementationOf(JmhResult)} from a {@code baseline*} method.
     * @param oursOps    the operations of ours in the same class.
     * @return the baseline with its name and operation resolved, or unchanged when nothing matches.
     */
    public static Implementation resolveMethodBaseline(final Implementation baseline,
        final Collection<String> oursOps)
    {
        if (baseline.role() != Role.BASELINE || !BASELINE_PREFIX.equals(baseline.name()) ||
            oursOps.contains(baseline.operation()))
        {
            return baseline;
        }
        final String remainder = capitalize(baseline.operation());
        String bestOp = null;
        for (final String op : oursOps)
        {
            final String suffix = capitalize(op);
            if (remainder.length() > suffix.length() && remainder.endsWith(suffix) &&
                (bestOp == null || op.length() > bestOp.length()))
            {
                bestOp = op;
            }
        }
        if (bestOp == null)
        {
            return baseline;
        }
        final String name = remainder.substring(0, remainder.length() - bestOp.length());
        return new Implementation(Role.BASELINE, decapitalize(name), bestOp);
    }

    private static String capitalize(final String text)
    {
        return text.isEmpty() ? text : text.substring(0, 1).toUpperCase(Locale.ROOT) + text.substring(1);
    }

    private static String decapitalize(final String text)
    {
        return text.isEmpty() ? text : text.substring(0, 1).toLowerCase(Locale.ROOT) + text.substring(1);
    }

    /**
     * The key under which ours and its baselines meet: class, operation, mode, threads and every parameter but
     * {@code impl}.
     *
     * @param result         a result.
     * @param implementation its implementation.
     * @return the key.
     */
    public static String pairKey(final JmhResult result, final Implementation implementation)
    {
        final Map<String, String> others = new TreeMap<>(result.params());
        others.remove(IMPL_PARAM);
        return result.suite() + "#" + implementation.operation() + "|" + result.mode() + "|" + result.threads() +
            "|" + others;
    }

    /** {@code oursGet} with prefix {@code ours} gives {@code get}; a bare {@code ours} gives {@code ours}. */
    private static String operationAfter(final String method, final String prefix)
    {
        if (!method.startsWith(prefix))
        {
            return null;
        }
        if (method.length() == prefix.length())
        {
            return OURS_PREFIX + "/" + BASELINE_PREFIX;
        }
        final char next = method.charAt(prefix.length());
        if (!Character.isUpperCase(next))
        {
            return null;
        }
        return decapitalize(method.substring(prefix.length()));
    }
}
