/**
 * The block store SPI the engine caches in ({@code BlockStore}), block keys, and the fetch classes.
 */
package dev.offcache.range.store;
