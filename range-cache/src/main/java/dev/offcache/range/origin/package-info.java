/**
 * The origin SPI ({@code ObjectStore}) and its local and HTTP implementations, with the exceptions and listing types
 * they share.
 */
package dev.offcache.range.origin;
