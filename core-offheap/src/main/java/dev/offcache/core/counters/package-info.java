/**
 * The one table of Agrona counter type ids offcache allocates, so a reader in another process tells its counters
 * apart.
 */
package dev.offcache.core.counters;
