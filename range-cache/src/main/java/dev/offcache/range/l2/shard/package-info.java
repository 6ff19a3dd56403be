/**
 * Several L2 servers as one origin: rendezvous hashing of keys to servers, with health tracking.
 */
package dev.offcache.range.l2.shard;
