package dev.offcache.server.http;

import java.util.List;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import dev.offcache.range.origin.ObjectKeys;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * The server's key policy is the engine's key rules plus stricter ones, never looser: whatever the server admits
 * the engine accepts, and what the engine refuses the server refuses with the engine's reason.
 */
class ObjectKeyPolicyProperties
{
    private final ObjectKeyPolicy policy = new ObjectKeyPolicy(64, List.of());

    @Provide
    Arbitrary<String> keys()
    {
        final Arbitrary<String> segment = Arbitraries.oneOf(
            Arbitraries.strings().withChars("ab.\\\u0000\u0007é").ofMaxLength(4),
            Arbitraries.of("", ".", "..", "x"));
        return segment.list().ofMinSize(1).ofMaxSize(5).map(parts -> String.join("/", parts))
            .flatMap(key -> Arbitraries.of(key, "/" + key, key + "/"));
    }

    @Property(tries = 3000)
    void whatTheServerAdmitsTheEngineAccepts(@ForAll("keys") final String key)
    {
        if (policy.problemWith(key) == null)
        {
            assertEquals(key, ObjectKeys.validate(key));
        }
    }

    @Property(tries = 3000)
    void whatTheEngineRefusesTheServerRefusesForTheSameReason(@ForAll("keys") final String key)
    {
        final String engine = ObjectKeys.problemWith(key);
        if (engine != null)
        {
            assertEquals(key.isEmpty() ? "empty key" : engine, policy.problemWith(key));
        }
    }

    @Example
    void theServerIsStricterWhereTheEngineNeedsNotBe()
    {
        for (final String key : List.of("a/./b", "a/", "a\u0007b"))
        {
            assertNull(ObjectKeys.problemWith(key), key);
            assertNotNull(policy.problemWith(key), key);
        }
        assertNotNull(policy.problemWith("k".repeat(65)), "longer than the policy's bound");
    }
}
