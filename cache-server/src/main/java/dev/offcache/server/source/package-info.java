/**
 * The engine's blocks in the shapes a response body sends (a RAM slot as a zero-copy Netty buffer, an SSD block file
 * as a file region), and the engine's object names for the SSD tier's block files. The endpoints read through the
 * engine ({@code RangeCache}) itself.
 */
package dev.offcache.server.source;
