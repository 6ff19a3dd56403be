/**
 * A segmented, memory-mapped, append-only log of CRC32C-checked records: a torn tail left by a crash is dropped on
 * open, any other damage refused.
 */
package dev.offcache.core.journal;
