/**
 * The payload client: fetches sent to a payload server over Aeron, answered in chunks assembled into the caller's
 * buffer.
 */
package dev.offcache.transport.client;
