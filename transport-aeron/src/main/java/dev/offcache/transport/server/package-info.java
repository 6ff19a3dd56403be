/**
 * The payload server: requests served from a payload source in chunks, per client session, with counters.
 */
package dev.offcache.transport.server;
