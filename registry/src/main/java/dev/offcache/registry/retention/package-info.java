/**
 * Retention: the policy and the sweeper that evicts entries past it.
 */
package dev.offcache.registry.retention;
