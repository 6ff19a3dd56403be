/**
 * The registry's public API: the asynchronous registry and the outcomes of its calls.
 */
package dev.offcache.registry.api;
