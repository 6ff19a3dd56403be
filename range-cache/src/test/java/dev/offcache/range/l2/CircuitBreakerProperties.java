package dev.offcache.range.l2;

import java.util.ArrayList;
import java.util.List;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The breaker against a plain reference model, over random interleavings of admissions (demand or prefetch),
 * outcomes of calls still out (answered or unresponsive, in any order) and clock advances.
 */
class CircuitBreakerProperties
{
    private static final long OPEN_NS = 3_000;

    /** One step: 0 = admit demand, 1 = admit prefetch, 2 = answer an outstanding call, 3 = unresponsive, 4 = tick. */
    record Step(int kind, int pick, int ticks)
    {
    }

    @Provide
    Arbitrary<List<Step>> steps()
    {
        final Arbitrary<Step> step = Combinators.combine(
            Arbitraries.integers().between(0, 4),
            Arbitraries.integers().between(0, 1000),
            Arbitraries.integers().between(1, 2_000)).as(Step::new);
        return step.list().ofMinSize(1).ofMaxSize(120);
    }

    @Property(tries = 200)
    void breakerMatchesTheReferenceModel(
        @ForAll @IntRange(min = 1, max = 6) final int threshold,
        @ForAll("steps") final List<Step> steps)
    {
        final long[] now = {0};
        final int[] listened = new int[3];
        final CircuitBreaker.Listener listener = new CircuitBreaker.Listener()
        {
            @Override
            public void onOpen()
            {
                listened[0]++;
            }

            @Override
            public void onProbe()
            {
                listened[1]++;
            }

            @Override
            public void onClose()
            {
                listened[2]++;
            }
        };
        final CircuitBreaker breaker = new CircuitBreaker(threshold, OPEN_NS, () -> now[0], listener);
        final Model model = new Model(threshold);
        final List<CircuitBreaker.Admission> outstanding = new ArrayList<>();
        for (final Step step : steps)
        {
            switch (step.kind())
            {
                case 0:
                case 1:
                    final boolean mayProbe = step.kind() == 0;
                    final CircuitBreaker.Admission actual = breaker.admit(mayProbe);
                    assertEquals(model.admit(mayProbe, now[0]), actual, "admission at " + now[0]);
                    if (actual != CircuitBreaker.Admission.SKIP)
                    {
                        outstanding.add(actual);
                    }
                    break;
                case 2:
                case 3:
                    if (outstanding.isEmpty())
                    {
                        break;
                    }
                    final CircuitBreaker.Admission call = outstanding.remove(step.pick() % outstanding.size());
                    if (step.kind() == 2)
                    {
                        breaker.onAnswered(call);
                        model.answered(call);
                    }
                    else
                    {
                        breaker.onUnresponsive(call);
                        model.unresponsive(call, now[0]);
                    }
                    break;
                default:
                    now[0] += step.ticks();
                    break;
            }
            assertEquals(model.state, breaker.state());
            assertEquals(model.opens, listened[0]);
            assertEquals(model.probes, listened[1]);
            assertEquals(model.closes, listened[2]);
        }
    }

    /** The rules written as plainly as possible. */
    static final class Model
    {
        final int threshold;
        CircuitBreaker.State state = CircuitBreaker.State.CLOSED;
        long openedAt;
        int consecutive;
        int opens;
        int probes;
        int closes;

        Model(final int threshold)
        {
            this.threshold = threshold;
        }

        CircuitBreaker.Admission admit(final boolean mayProbe, final long now)
        {
            if (state == CircuitBreaker.State.CLOSED)
            {
                return CircuitBreaker.Admission.PASS;
            }
            if (state == CircuitBreaker.State.OPEN && mayProbe && now - openedAt >= OPEN_NS)
            {
                state = CircuitBreaker.State.HALF_OPEN;
                probes++;
                return CircuitBreaker.Admission.PROBE;
            }
            return CircuitBreaker.Admission.SKIP;
        }

        void answered(final CircuitBreaker.Admission call)
        {
            consecutive = 0;
            if (call == CircuitBreaker.Admission.PROBE)
            {
                state = CircuitBreaker.State.CLOSED;
                closes++;
            }
        }

        void unresponsive(final CircuitBreaker.Admission call, final long now)
        {
            if (call == CircuitBreaker.Admission.PROBE)
            {
                state = CircuitBreaker.State.OPEN;
                openedAt = now;
                opens++;
                return;
            }
            consecutive++;
            if (consecutive >= threshold && state == CircuitBreaker.State.CLOSED)
            {
                state = CircuitBreaker.State.OPEN;
                openedAt = now;
                consecutive = 0;
                opens++;
            }
        }
    }
}
