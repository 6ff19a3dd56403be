package dev.offcache.registry.journal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import net.jqwik.api.Arbitrary;
import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import org.agrona.concurrent.CachedEpochClock;

import dev.offcache.registry.front.CacheRegistry;
import dev.offcache.registry.model.Command;
import dev.offcache.registry.model.Commands;
import dev.offcache.registry.model.ReferenceModel;
import dev.offcache.registry.state.CacheStateMachine;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Random command sequences through the durable registry (with snapshots every few records, so recovery mixes
 * snapshot and journal replay), closed and recovered: the recovered state and pins equal the reference model's.
 */
class DurableRecoveryProperties
{
    @Property(tries = 40, edgeCases = EdgeCasesMode.NONE)
    void recoveryRestoresExactlyTheAcknowledgedState(
        @ForAll("sequences") final List<Command> commands,
        @ForAll @IntRange(min = 1, max = 12) final int snapshotEvery) throws Exception
    {
        final Path dir = Files.createTempDirectory("offcache-registry-prop");
        try
        {
            final Set<String> dead = ConcurrentHashMap.newKeySet();
            final ReferenceModel model = new ReferenceModel();
            final CachedEpochClock clock = new CachedEpochClock();
            try (CacheRegistry registry = CacheRegistry.launch(new CacheRegistry.Context()
                .clock(clock)
                .liveExecutors(id -> !dead.contains(id))
                .changeLog(open(dir, snapshotEvery))))
            {
                for (final Command command : commands)
                {
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
                        final CompletableFuture<?> outcome = command.publish(registry);
                        assertEquals(expected, Command.normalise(outcome.get(5, TimeUnit.SECONDS)), command.toString());
                    }
                }
            }
            try (JournalChangeLog log = open(dir, snapshotEvery))
            {
                final CacheStateMachine recovered = new CacheStateMachine(new CachedEpochClock());
                log.recover(recovered);
                assertEquals(model.map, recovered.entries());
                assertEquals(model.pinnedStages(), recovered.pinnedStages());
                assertEquals(model.totalBytes(), recovered.totalBytes());
            }
        }
        finally
        {
            try (Stream<Path> files = Files.walk(dir))
            {
                for (final Path file : files.sorted(Comparator.reverseOrder()).toList())
                {
                    Files.delete(file);
                }
            }
        }
    }

    @Provide
    Arbitrary<List<Command>> sequences()
    {
        return Commands.sequences("", true);
    }

    private static JournalChangeLog open(final Path dir, final int snapshotEvery) throws IOException
    {
        return JournalChangeLog.open(new JournalChangeLog.Context()
            .directory(dir).segmentSize(16 * 1024).snapshotEveryRecords(snapshotEvery));
    }
}
