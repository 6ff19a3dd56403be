/**
 * offcache-l2: reads a key through the sharded L2 client with an origin that refuses, so bytes the L2 servers did
 * not serve are an error.
 */
package dev.offcache.tools.l2;
