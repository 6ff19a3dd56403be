/**
 * The wire format: frame types, headers and error codes.
 */
package dev.offcache.transport.wire;
