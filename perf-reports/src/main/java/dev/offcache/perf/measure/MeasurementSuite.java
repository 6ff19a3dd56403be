package dev.offcache.perf.measure;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.offcache.perf.pairing.PairingConvention;

/**
 * The measurements of one file paired: on each case and metric, every ours against every baseline; what has no
 * partner is listed on its own.
 *
 * @param file     the file.
 * @param pairs    the pairs, in file order.
 * @param unpaired measurements without a partner (a case measured on one side only).
 */
public record MeasurementSuite(MeasurementFile file, List<MeasuredPair> pairs, List<Measurement> unpaired)
{
    /** ours' plain name. */
    static final String OURS = PairingConvention.OURS_IMPL;

    /**
     * Freezes the lists.
     */
    public MeasurementSuite
    {
        pairs = List.copyOf(pairs);
        unpaired = List.copyOf(unpaired);
    }

    /**
     * Pairs a file's measurements.
     *
     * @param file the file.
     * @return the suite.
     */
    public static MeasurementSuite pair(final MeasurementFile file)
    {
        final Map<String, List<Measurement>> byQuantity = new LinkedHashMap<>();
        for (final Measurement measurement : file.measurements())
        {
            byQuantity.computeIfAbsent(measurement.caseName() + "\u0000" + measurement.metric(),
                k -> new ArrayList<>()).add(measurement);
        }
        final List<MeasuredPair> pairs = new ArrayList<>();
        final List<Measurement> unpaired = new ArrayList<>();
        for (final List<Measurement> quantity : byQuantity.values())
        {
            final List<Measurement> ours = quantity.stream().filter(Measurement::ours).toList();
            final List<Measurement> baselines = quantity.stream().filter(m -> !m.ours()).toList();
            if (ours.isEmpty() || baselines.isEmpty())
            {
                unpaired.addAll(quantity);
                continue;
            }
            for (final Measurement o : ours)
            {
                for (final Measurement b : baselines)
                {
                    pairs.add(new MeasuredPair(o, b));
                }
            }
        }
        return new MeasurementSuite(file, pairs, unpaired);
    }

    /**
     * The suite's name.
     *
     * @return for example {@code cache-server.L2VsNginx}.
     */
    public String name()
    {
        return file.suite();
    }
}
