/**
 * Logging helpers of the server: warnings rate-limited so a failing origin cannot flood the log.
 */
package dev.offcache.server.log;
