package dev.offcache.registry.state;

/**
 * The schema of a cached dataset, kept opaque: the registry stores and returns it but never interprets it.
 *
 * <p>The query engine chooses the encoding (for example an Arrow IPC schema in base64, or a JSON field list); the
 * registry only guarantees the same string comes back from a lookup and survives a restart.
 *
 * @param description the engine's serialized schema; not empty.
 */
public record DatasetSchema(String description)
{
    /**
     * Validates the description.
     *
     * @throws IllegalArgumentException when it is null or empty.
     */
    public DatasetSchema
    {
        Ids.requireId(description, "schema description");
    }
}
