/**
 * Binary codecs of the registry's records and partition locations.
 */
package dev.offcache.registry.codec;
