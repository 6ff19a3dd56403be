/**
 * The registry's state machine: entries, keys, outcomes and the changes each command makes.
 */
package dev.offcache.registry.state;
