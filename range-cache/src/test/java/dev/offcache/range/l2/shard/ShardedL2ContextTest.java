package dev.offcache.range.l2.shard;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.offcache.range.l2.L2ClientContext;
import dev.offcache.range.origin.FileSystemOrigin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code OFFCACHE_L2_SERVERS} and the health settings: parsed through the shared environment reader, refused
 * naming the variable and the value, the single-server client's variables applied to the template.
 */
class ShardedL2ContextTest
{
    @TempDir
    Path tmp;

    @Test
    void serversAndHealthSettingsComeFromTheEnvironment()
    {
        final ShardedL2Context ctx = new ShardedL2Context().fromEnvironment(Map.of(
            ShardedL2Context.ENV_SERVERS, " http://l2-a:8080, http://L2-B:8081/base/ ,http://10.0.0.3",
            ShardedL2Context.ENV_HEALTH_INTERVAL_MS, "250",
            ShardedL2Context.ENV_HEALTH_TIMEOUT_MS, "100",
            ShardedL2Context.ENV_UNHEALTHY_AFTER, "4",
            L2ClientContext.ENV_API_KEY, "secret-key",
            L2ClientContext.ENV_BREAKER_THRESHOLD, "7"));
        ctx.origin(new FileSystemOrigin(tmp, 1)).conclude();
        assertEquals(List.of(URI.create("http://l2-a:8080"), URI.create("http://L2-B:8081/base/"),
            URI.create("http://10.0.0.3")), ctx.servers());
        assertEquals(Duration.ofMillis(250), ctx.healthInterval());
        assertEquals(Duration.ofMillis(100), ctx.healthTimeout());
        assertEquals(4, ctx.unhealthyAfter());
        assertEquals("secret-key", ctx.client().apiKey());
        assertEquals(7, ctx.client().breakerThreshold());
        assertEquals("http://l2-b:8081/base", ShardedL2Context.serverId(ctx.servers().get(1)));
        assertEquals("http://10.0.0.3:80", ShardedL2Context.serverId(ctx.servers().get(2)));
        ctx.origin().close();
    }

    @Test
    void invalidValuesAreRefusedNamingTheVariable()
    {
        assertRefused(Map.of(ShardedL2Context.ENV_SERVERS, "http://a:1,,http://b:2"), "OFFCACHE_L2_SERVERS",
            "empty entry");
        assertRefused(Map.of(ShardedL2Context.ENV_SERVERS, "http://a:1,https://b:2"), "OFFCACHE_L2_SERVERS",
            "'https://b:2' must be an http:// URL");
        assertRefused(Map.of(ShardedL2Context.ENV_SERVERS, "http://a:1,b c"), "OFFCACHE_L2_SERVERS",
            "'b c' is not a URI");
        assertRefused(Map.of(ShardedL2Context.ENV_SERVERS, "http://a:1/?q=1"), "OFFCACHE_L2_SERVERS",
            "must not carry a query");
        assertRefused(Map.of(ShardedL2Context.ENV_SERVERS, "http://a:80,http://A"), "OFFCACHE_L2_SERVERS",
            "lists http://a:80 twice");
        assertRefused(Map.of(ShardedL2Context.ENV_SERVERS, " "), "OFFCACHE_L2_SERVERS", "empty entry");
        assertRefused(Map.of(ShardedL2Context.ENV_HEALTH_INTERVAL_MS, "0"), "OFFCACHE_L2_HEALTH_INTERVAL_MS",
            "must be an integer >= 1");
        assertRefused(Map.of(ShardedL2Context.ENV_HEALTH_TIMEOUT_MS, "soon"), "OFFCACHE_L2_HEALTH_TIMEOUT_MS",
            "is not a number");
        assertRefused(Map.of(ShardedL2Context.ENV_UNHEALTHY_AFTER, "-1"), "OFFCACHE_L2_UNHEALTHY_AFTER",
            "must be an integer >= 1");
    }

    @Test
    void concludeRefusesMissingServersKeyAndBadSettings()
    {
        final FileSystemOrigin origin = new FileSystemOrigin(tmp, 1);
        final IllegalArgumentException noServers = assertThrows(IllegalArgumentException.class,
            () -> new ShardedL2Context().apiKey("k").origin(origin).conclude());
        assertTrue(noServers.getMessage().contains("OFFCACHE_L2_SERVERS"), noServers.getMessage());
        final IllegalArgumentException noKey = assertThrows(IllegalArgumentException.class,
            () -> new ShardedL2Context().server(URI.create("http://a:1")).origin(origin).conclude());
        assertTrue(noKey.getMessage().contains("OFFCACHE_L2_API_KEY"), noKey.getMessage());
        final IllegalArgumentException duplicate = assertThrows(IllegalArgumentException.class,
            () -> new ShardedL2Context().apiKey("k").origin(origin)
                .servers(List.of(URI.create("http://a:80/"), URI.create("http://a"))).conclude());
        assertTrue(duplicate.getMessage().contains("twice"), duplicate.getMessage());
        final IllegalArgumentException unhealthy = assertThrows(IllegalArgumentException.class,
            () -> new ShardedL2Context().apiKey("k").origin(origin).server(URI.create("http://a:1"))
                .unhealthyAfter(0).conclude());
        assertTrue(unhealthy.getMessage().contains("OFFCACHE_L2_UNHEALTHY_AFTER"), unhealthy.getMessage());
        origin.close();
    }

    @Test
    void theSingleServerUrlIsUsedWhenNoListIsGiven()
    {
        final ShardedL2Context ctx = new ShardedL2Context()
            .fromEnvironment(Map.of(L2ClientContext.ENV_URL, "http://one:9000", L2ClientContext.ENV_API_KEY, "k"))
            .origin(new FileSystemOrigin(tmp, 1))
            .conclude();
        assertEquals(List.of(URI.create("http://one:9000")), ctx.servers());
        ctx.origin().close();
    }

    private static void assertRefused(final Map<String, String> env, final String variable, final String why)
    {
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
            () -> new ShardedL2Context().fromEnvironment(env));
        assertTrue(ex.getMessage().startsWith("invalid " + variable + "="), ex.getMessage());
        assertTrue(ex.getMessage().contains(why), ex.getMessage());
    }
}
