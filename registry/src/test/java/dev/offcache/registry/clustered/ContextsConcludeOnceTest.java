package dev.offcache.registry.clustered;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

import dev.offcache.core.config.ConcurrentConcludeException;
import dev.offcache.registry.front.CacheRegistry;
import dev.offcache.registry.journal.JournalChangeLog;
import dev.offcache.registry.state.BeginOutcome;
import dev.offcache.registry.state.CacheKey;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every context of this module configures one component: given to a second launch, open or connect (or concluded by
 * hand first) it is refused with {@link ConcurrentConcludeException} before it starts anything, and the first
 * component still answers commands.
 */
class ContextsConcludeOnceTest
{
    private static final CacheKey KEY = new CacheKey("session", "cache");
    private static final long TIMEOUT_S = 20;

    @TempDir
    Path dir;

    @Test
    void theInProcessContextsAreRefusedForASecondComponentAndTheFirstStillWorks() throws Exception
    {
        final JournalChangeLog.Context logContext = new JournalChangeLog.Context().directory(dir.resolve("log"))
            .segmentSize(64 * 1024);
        final JournalChangeLog log = JournalChangeLog.open(logContext);
        assertRefused("JournalChangeLog.Context", () -> JournalChangeLog.open(logContext));
        final CacheRegistry.Context registryContext = new CacheRegistry.Context().changeLog(log);
        try (CacheRegistry registry = CacheRegistry.launch(registryContext))
        {
            assertRefused("CacheRegistry.Context", () -> CacheRegistry.launch(registryContext));
            assertInstanceOf(BeginOutcome.Claimed.class,
                registry.beginMaterialization(KEY, "job-1").get(TIMEOUT_S, TimeUnit.SECONDS));
            assertEquals(new BeginOutcome.AlreadyPending("job-1"),
                registry.beginMaterialization(KEY, "job-2").get(TIMEOUT_S, TimeUnit.SECONDS));
            assertTrue(log.recordsAppended() >= 1, "the first change log took the claim");
        }
    }

    @Test
    void theInProcessContextsConcludedByHandAreRefused()
    {
        final JournalChangeLog.Context logContext = new JournalChangeLog.Context().directory(dir.resolve("hand"));
        logContext.conclude();
        assertRefused("JournalChangeLog.Context", () -> JournalChangeLog.open(logContext));
        final CacheRegistry.Context registryContext = new CacheRegistry.Context();
        registryContext.conclude();
        assertRefused("CacheRegistry.Context", () -> CacheRegistry.launch(registryContext));
    }

    @Test
    void theClusterContextsAreRefusedForASecondLaunchOrConnectAndTheFirstStillServes() throws Exception
    {
        try (ClusterFixture cluster = new ClusterFixture(dir))
        {
            final RegistryClusterMember.Context memberContext = cluster.memberContext(0);
            cluster.members[0] = RegistryClusterMember.launch(memberContext);
            assertRefused("RegistryClusterMember.Context", () -> RegistryClusterMember.launch(memberContext));
            cluster.start(1);
            cluster.start(2);
            cluster.awaitLeader(15_000);
            final RegistryClusterClient.Context clientContext = new RegistryClusterClient.Context()
                .ingressEndpoints(RegistryClusterMember.ingressEndpoints(ClusterFixture.HOSTS, cluster.portBase))
                .egressChannel("aeron:udp?endpoint=127.0.0.1:0")
                .connectTimeoutMs(20_000)
                .resendTimeoutMs(1_000);
            try (RegistryClusterClient client = RegistryClusterClient.connect(clientContext))
            {
                assertRefused("RegistryClusterClient.Context", () -> RegistryClusterClient.connect(clientContext));
                assertInstanceOf(BeginOutcome.Claimed.class,
                    client.beginMaterialization(KEY, "job-1").get(TIMEOUT_S, TimeUnit.SECONDS));
                assertEquals(new BeginOutcome.AlreadyPending("job-1"),
                    client.beginMaterialization(KEY, "job-2").get(TIMEOUT_S, TimeUnit.SECONDS));
            }
        }
    }

    private static void assertRefused(final String context, final Executable second)
    {
        final ConcurrentConcludeException refused = assertThrows(ConcurrentConcludeException.class, second);
        assertTrue(refused.getMessage().startsWith(context + " is already concluded"), refused.getMessage());
    }
}
