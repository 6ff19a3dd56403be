package dev.offcache.server.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.offcache.range.engine.RangeCache;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

/**
 * What every connection's handler shares: the engine, the budget, policies, queues and metrics. Immutable; the
 * parts are thread-safe.
 *
 * @param engine       where bytes come from (not owned: its owner closes it after the server).
 * @param budget       the global response memory budget.
 * @param apiKeys      accepted keys, or {@code null} when auth is disabled.
 * @param keyPolicy    which object keys are allowed.
 * @param maxRanges    most ranges in one {@code POST /ranges}.
 * @param prefetch     the prefetch queue.
 * @param metrics      HTTP metrics.
 * @param registry     what {@code /metrics} scrapes: this server's, the store's and the engine's counters, the JVM.
 * @param json         the JSON mapper.
 * @param state        readiness and draining.
 */
record ServerResources(
    RangeCache engine,
    MemoryBudget budget,
    ApiKeys apiKeys,
    ObjectKeyPolicy keyPolicy,
    int maxRanges,
    PrefetchQueue prefetch,
    HttpMetrics metrics,
    PrometheusRegistry registry,
    ObjectMapper json,
    ServerState state)
{
}
