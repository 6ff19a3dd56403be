package dev.offcache.perf.pairing;

import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

import dev.offcache.perf.jmh.JmhResult;

/**
 * The convention that tells, from a JMH result alone, whether it measured offcache or a baseline and which results
 * belong together. Documented for benchmark authors in {@code jmh-benchmarks/README.md}.
 *
 * <ol>
 *   <li><b>{@code impl} parameter</b> (preferred): a {@code @Param} named {@code impl}; the value
 *       {@code offcache} is ours, every other value (for example {@code caffeine}, {@code fileChannel}) is a
 *       baseline of that name.</li>
 *   <li><b>Method names</b>: in one class, {@code ours<Op>} is ours and {@code baseline<Op>} its baseline
 *       (for example {@code oursGet} and {@code baselineGet}).</li>
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
            return OURS_IMPL.equals(impl) ?
                new Implementation(Role.OURS, OURS_IMPL, method) : new Implementation(Role.BASELINE, impl, method);
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
        return method.substring(prefix.length(), prefix.length() + 1).toLowerCase(Locale.ROOT) +
            method.substring(prefix.length() + 1);
    }
}
