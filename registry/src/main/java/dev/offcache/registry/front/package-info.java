/**
 * The registry's in-process front: commands through a Disruptor ring to a single writer (run by a registry thread or
 * by the callers themselves), reads from a published immutable view.
 */
package dev.offcache.registry.front;
