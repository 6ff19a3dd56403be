package dev.offcache.range.store;

/**
 * Why a block is fetched: a read that a caller waits for, or background warming. Demand has a reserved slice of
 * the fetch permits; a store may place prefetched blocks in a colder tier.
 */
public enum FetchClass
{
    /** A read a caller is waiting for. */
    DEMAND,
    /** Background warming that no caller waits for. */
    PREFETCH
}
