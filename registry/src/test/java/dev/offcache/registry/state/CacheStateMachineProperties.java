package dev.offcache.registry.state;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.agrona.concurrent.CachedEpochClock;

import dev.offcache.registry.model.Command;
import dev.offcache.registry.model.Commands;
import dev.offcache.registry.model.ReferenceModel;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The state machine against the reference model, one command at a time: same outcome, same entries, same pinned
 * stages, same byte total and the same removals reported to the listener, after every step.
 */
class CacheStateMachineProperties
{
    @Property(tries = 1000)
    void behavesLikeTheReferenceModel(@ForAll("sequences") final List<Command> commands)
    {
        final CachedEpochClock clock = new CachedEpochClock();
        final Set<String> dead = new HashSet<>();
        final List<RemovedEntry> reported = new ArrayList<>();
        final CacheStateMachine machine = new CacheStateMachine(clock, id -> !dead.contains(id),
            new StateChangeListener()
            {
                public void onRemoved(final CacheKey key, final CacheEntry removed)
                {
                    reported.add(new RemovedEntry(key, removed));
                }
            });
        final ReferenceModel model = new ReferenceModel();

        for (int step = 0; step < commands.size(); step++)
        {
            final Command command = commands.get(step);
            final String where = "step " + step + " " + command;
            final Object expected = Command.normalise(command.apply(model));
            if (command instanceof Command.SetExecutorLive live)
            {
                live.applyTo(dead);
            }
            else if (command instanceof Command.AdvanceClock advance)
            {
                clock.advance(advance.millis());
            }
            else
            {
                assertEquals(expected, Command.normalise(command.apply(machine)), where);
            }
            assertEquals(model.map, machine.entries(), where);
            assertEquals(model.pinnedStages(), machine.pinnedStages(), where);
            assertEquals(model.totalBytes(), machine.totalBytes(), where);
            assertEquals(model.map.size(), machine.size(), where);
            assertEquals(multiset(model.removals), multiset(reported), where);
        }
    }

    @Provide
    Arbitrary<List<Command>> sequences()
    {
        return Commands.sequences("", true);
    }

    private static Map<RemovedEntry, Integer> multiset(final List<RemovedEntry> removals)
    {
        final Map<RemovedEntry, Integer> out = new HashMap<>();
        removals.forEach(r -> out.merge(r, 1, Integer::sum));
        return out;
    }
}
