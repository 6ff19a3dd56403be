/**
 * One shared range cache per JVM and settings, for the engine adapters: the {@code offcache.*} settings, versioned
 * cache keys, the origin that routes misses to the adapters' byte sources, the cursor their streams read through, and
 * the optional L2.
 */
package dev.offcache.embed;
