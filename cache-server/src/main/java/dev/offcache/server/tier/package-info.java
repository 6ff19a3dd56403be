/**
 * The L2 server's block store: a RAM tier spilling to an SSD tier of block files (their format, index, recovery and
 * CRC checks), tiered behind one {@code BlockStore}.
 */
package dev.offcache.server.tier;
