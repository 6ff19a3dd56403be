/**
 * The registry's durable change log over the append-only journal.
 */
package dev.offcache.registry.journal;
