/**
 * CRC32C over off-heap memory, the one checksum blocks, partitions and journals carry.
 */
package dev.offcache.core.checksum;
