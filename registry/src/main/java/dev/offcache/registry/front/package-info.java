/**
 * The registry's in-process front: commands through a Disruptor ring to a single writer, reads from a published
 * immutable view.
 */
package dev.offcache.registry.front;
