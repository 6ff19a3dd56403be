/**
 * The registry's commands as both fronts apply them on their single writer, with the waiters on pending keys and how
 * each waiter ends.
 */
package dev.offcache.registry.waiting;
