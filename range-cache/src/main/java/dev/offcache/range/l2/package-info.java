/**
 * The L2 client: an origin that reads through an L2 server over HTTP, checks chunk CRCs, falls back to the real
 * origin, and sends warming hints.
 */
package dev.offcache.range.l2;
