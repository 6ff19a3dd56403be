/**
 * Reference counting for off-heap memory: a handle is freed when its last holder releases it.
 */
package dev.offcache.core.ref;
