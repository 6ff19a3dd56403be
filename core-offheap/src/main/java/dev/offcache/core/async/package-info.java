/**
 * Starting asynchronous work whose start may throw: whatever the call throws ends in the returned future.
 */
package dev.offcache.core.async;
