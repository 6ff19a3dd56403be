/**
 * Memory-mapped regions of files or anonymous memory, mapped in aligned pieces and unmapped explicitly on close.
 */
package dev.offcache.core.region;
