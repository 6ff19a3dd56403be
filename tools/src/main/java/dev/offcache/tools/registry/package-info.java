/**
 * offcache-registry: runs a registry cluster member, or sends one command (acquire, lookup, abort, invalidate,
 * entries) to a running cluster.
 */
package dev.offcache.tools.registry;
