package dev.offcache.perf.pairing;

/**
 * Which implementation a result measured and which operation, as read from its name and parameters.
 *
 * @param role      ours, a baseline or standalone.
 * @param name      {@code offcache} for ours, the baseline's name (the {@code impl} value, or {@code baseline}),
 *                  or the method name for a standalone benchmark.
 * @param operation the operation compared, the same for ours and its baselines: the method name in the
 *                  {@code impl}-parameter form, the part after {@code ours}/{@code baseline} in the method-name form.
 */
public record Implementation(Role role, String name, String operation)
{
}
