/**
 * The L2 server's Netty HTTP front: connections and their limits, API keys, request decoding, the {@code /obj}, {@code
 * /ranges}, {@code /prefetch} and health endpoints, the response memory budget, the prefetch queue and the access log.
 */
package dev.offcache.server.http;
