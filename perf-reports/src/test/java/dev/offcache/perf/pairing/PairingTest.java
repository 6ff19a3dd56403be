package dev.offcache.perf.pairing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.offcache.perf.Fixtures;
import dev.offcache.perf.jmh.JmhResult;
import dev.offcache.perf.jmh.JmhResultReader;
import dev.offcache.perf.jmh.Metric;
import dev.offcache.perf.jmh.Separation;

class PairingTest
{
    @Test
    void implParameterNamesOursAndTheBaseline()
    {
        assertEquals(new Implementation(Role.OURS, "offcache", "get"),
            PairingConvention.implementationOf(result("a.B.get", Map.of("impl", "offcache"))));
        assertEquals(new Implementation(Role.BASELINE, "caffeine", "get"),
            PairingConvention.implementationOf(result("a.B.get", Map.of("impl", "caffeine"))));
    }

    @Test
    void methodPrefixesNameOursAndTheBaseline()
    {
        assertEquals(new Implementation(Role.OURS, "offcache", "readBlock"),
            PairingConvention.implementationOf(result("a.B.oursReadBlock", Map.of())));
        assertEquals(new Implementation(Role.BASELINE, "baseline", "readBlock"),
            PairingConvention.implementationOf(result("a.B.baselineReadBlock", Map.of())));
        assertEquals(Role.OURS, PairingConvention.implementationOf(result("a.B.ours", Map.of())).role());
        assertEquals(Role.BASELINE, PairingConvention.implementationOf(result("a.B.baseline", Map.of())).role());
        // Only a whole word counts: "oursource" is not ours, "baselines" is not a baseline.
        assertEquals(Role.STANDALONE, PairingConvention.implementationOf(result("a.B.oursource", Map.of())).role());
        assertEquals(Role.STANDALONE, PairingConvention.implementationOf(result("a.B.baselines", Map.of())).role());
        assertEquals(Role.STANDALONE, PairingConvention.implementationOf(result("a.B.compute", Map.of())).role());
    }

    @Test
    void methodBaselinesMayNameThemselvesBeforeTheOperation()
    {
        final List<SuiteResults> suites = Pairing.pair(List.of(
            result("a.B.oursGet", Map.of()),
            result("a.B.oursMultiGet", Map.of()),
            result("a.B.baselineCaffeineGet", Map.of()),
            result("a.B.baselineCaffeineMultiGet", Map.of()),
            result("a.B.baselineMultiGet", Map.of()),
            result("a.B.baselineHashMapPut", Map.of())));
        final List<String> pairs = suites.get(0).pairs().stream()
            .map(p -> p.ours().method() + "~" + p.baselineName() + ":" + p.baseline().method()).toList();
        assertEquals(List.of("oursGet~caffeine:baselineCaffeineGet",
            "oursMultiGet~caffeine:baselineCaffeineMultiGet", "oursMultiGet~baseline:baselineMultiGet"), pairs);
        // No oursPut: the baseline stays alone.
        assertEquals(List.of("baselineHashMapPut"),
            suites.get(0).standalone().stream().map(JmhResult::method).toList());
    }

    @Test
    void severalVariantsOfOursEachPairWithEveryBaseline()
    {
        assertEquals(new Implementation(Role.OURS, "offcache-aeron-ipc", "fetch"),
            PairingConvention.implementationOf(result("a.B.fetch", Map.of("impl", "offcache-aeron-ipc"))));
        assertEquals(Role.BASELINE,
            PairingConvention.implementationOf(result("a.B.fetch", Map.of("impl", "offcacheish"))).role());
        final List<PairedResult> pairs = Pairing.pair(List.of(
            result("a.B.fetch", Map.of("impl", "offcache-aeron-ipc")),
            result("a.B.fetch", Map.of("impl", "offcache-aeron-udp")),
            result("a.B.fetch", Map.of("impl", "netty-tcp")))).get(0).pairs();
        assertEquals(List.of("fetch (offcache-aeron-ipc) vs netty-tcp", "fetch (offcache-aeron-udp) vs netty-tcp"),
            pairs.stream().map(p -> p.operationLabel() + " vs " + p.baselineName()).toList());
    }

    @Test
    void pairKeyIgnoresOnlyTheImplementation()
    {
        final JmhResult ours = result("a.B.get", Map.of("impl", "offcache", "size", "64"));
        final JmhResult baseline = result("a.B.get", Map.of("impl", "caffeine", "size", "64"));
        final JmhResult otherSize = result("a.B.get", Map.of("impl", "caffeine", "size", "4096"));
        final String oursKey = PairingConvention.pairKey(ours, PairingConvention.implementationOf(ours));
        assertEquals(oursKey, PairingConvention.pairKey(baseline, PairingConvention.implementationOf(baseline)));
        assertNotEquals(oursKey, PairingConvention.pairKey(otherSize, PairingConvention.implementationOf(otherSize)));
    }

    @Test
    void pairsTheRecordedFile()
    {
        final List<SuiteResults> suites = Pairing.pair(JmhResultReader.read(Fixtures.path(Fixtures.REPORT)));
        assertEquals(List.of("core.Crc32cBenchmark", "journal.JournalAppendBenchmark", "range.BlockReadBenchmark",
            "registry.RegistryLookupBenchmark", "slab.SlabAllocateBenchmark"),
            suites.stream().map(SuiteResults::shortName).toList());

        final SuiteResults crc = suites.get(0);
        assertEquals(0, crc.pairs().size());
        assertEquals(List.of("compute"), crc.standalone().stream().map(JmhResult::method).toList());

        final PairedResult journal = suites.get(1).pairs().get(0);
        assertEquals("fileChannel", journal.baselineName());
        assertEquals(3.0, journal.speedup(), 1e-12);
        assertEquals(Separation.NO_ERROR_BARS, journal.separation());

        final SuiteResults range = suites.get(2);
        assertEquals(1, range.pairs().size());
        final PairedResult read = range.pairs().get(0);
        assertEquals("read", read.operation());
        assertEquals("baseline", read.baselineName());
        // 0.3 ms/op against 120 us/op: the baseline is converted to us/op before the ratio.
        assertEquals(2.5, read.speedup(), 1e-12);
        assertEquals(300.0, read.baselineMetric().score(), 1e-9);
        assertEquals(Separation.FIRST_BETTER, read.separation());
        assertEquals(List.of("oursWarm"), range.standalone().stream().map(JmhResult::method).toList());

        final List<PairedResult> registry = suites.get(3).pairs();
        assertEquals(2, registry.size());
        assertEquals("entries=1000", registry.get(0).sharedParamsLabel());
        assertEquals(5.0, registry.get(0).speedup(), 1e-12);
        assertEquals(Separation.FIRST_BETTER, registry.get(0).separation());
        assertEquals(1.1, registry.get(1).speedup(), 1e-12);
        assertEquals(Separation.OVERLAP, registry.get(1).separation());

        final List<PairedResult> slab = suites.get(4).pairs();
        assertEquals(4.0, slab.get(0).speedup(), 1e-12);
        assertEquals(Separation.FIRST_BETTER, slab.get(0).separation());
        assertEquals(0.5, slab.get(1).speedup(), 1e-12);
        assertEquals(Separation.SECOND_BETTER, slab.get(1).separation());
    }

    @Test
    void oursWithTwoBaselinesGivesTwoPairsAndALoneBaselineIsStandalone()
    {
        final List<SuiteResults> suites = Pairing.pair(List.of(
            result("a.B.get", Map.of("impl", "offcache")),
            result("a.B.get", Map.of("impl", "caffeine")),
            result("a.B.get", Map.of("impl", "concurrentHashMap")),
            result("a.B.put", Map.of("impl", "caffeine"))));
        assertEquals(1, suites.size());
        assertEquals(List.of("caffeine", "concurrentHashMap"),
            suites.get(0).pairs().stream().map(PairedResult::baselineName).toList());
        assertEquals(List.of("put"), suites.get(0).standalone().stream().map(JmhResult::method).toList());
    }

    private static JmhResult result(final String benchmark, final Map<String, String> params)
    {
        return new JmhResult(benchmark, "thrpt", 1, 1, params, Metric.of(1.0, 0.1, "ops/s"), Map.of(),
            new JmhResult.Environment("1.37", "17", "vm", "17", List.of(), "1 x 1 s", "3 x 1 s"));
    }
}
