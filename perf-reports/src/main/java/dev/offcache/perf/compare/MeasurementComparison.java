package dev.offcache.perf.compare;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.offcache.perf.measure.Measurement;
import dev.offcache.perf.measure.MeasurementFile;

/**
 * Compares the measurement files of two reports, value by value, as {@link ResultComparison} compares JMH results:
 * a regression is a value that moved the worse way (by the measurement's own "better") with the two intervals not
 * overlapping.
 */
public final class MeasurementComparison
{
    private MeasurementComparison()
    {
    }

    /**
     * Compares two sets of measurement files.
     *
     * @param baseline  the reference files.
     * @param candidate the new files.
     * @return one change per measurement in either set: the baseline's order first, then the added ones.
     */
    public static List<MeasurementChange> compare(final List<MeasurementFile> baseline,
        final List<MeasurementFile> candidate)
    {
        final Map<String, Measurement> candidates = new LinkedHashMap<>();
        final Map<String, String> candidateSuites = new LinkedHashMap<>();
        for (final MeasurementFile file : candidate)
        {
            for (final Measurement measurement : file.measurements())
            {
                final String key = file.suite() + "\u0000" + measurement.key();
                candidates.put(key, measurement);
                candidateSuites.put(key, file.suite());
            }
        }
        final List<MeasurementChange> changes = new ArrayList<>();
        for (final MeasurementFile file : baseline)
        {
            for (final Measurement before : file.measurements())
            {
                final Measurement after = candidates.remove(file.suite() + "\u0000" + before.key());
                changes.add(new MeasurementChange(file.suite(), before.key(), before, after, after == null ?
                    ChangeVerdict.REMOVED : verdict(before, after)));
            }
        }
        candidates.forEach((key, after) -> changes.add(new MeasurementChange(candidateSuites.get(key), after.key(),
            null, after, ChangeVerdict.ADDED)));
        return changes;
    }

    private static ChangeVerdict verdict(final Measurement before, final Measurement after)
    {
        if (!before.unit().equals(after.unit()) || before.higherIsBetter() != after.higherIsBetter())
        {
            return ChangeVerdict.INCOMPARABLE;
        }
        return ResultComparison.verdict(before.value(), after.value(), before.higherIsBetter());
    }
}
