/**
 * The in-process RAM block store: one slab, an index, and an eviction policy fed by sampled accesses.
 */
package dev.offcache.range.ram;
