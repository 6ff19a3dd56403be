/**
 * A persistent (immutable, structurally shared) hash trie, the registry's published view.
 */
package dev.offcache.registry.persistent;
