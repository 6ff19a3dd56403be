/**
 * What a response body is read from: the engine's streams and the blocks they hand over, as Netty buffers or file
 * regions.
 */
package dev.offcache.server.source;
