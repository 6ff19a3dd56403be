/**
 * Eviction policies over block keys: LRU and W-TinyLFU with its frequency sketch.
 */
package dev.offcache.range.policy;
