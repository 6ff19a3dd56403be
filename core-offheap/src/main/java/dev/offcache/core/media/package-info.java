/**
 * The one factory of embedded Aeron media drivers, shared by the transport and the registry's cluster members and
 * client (aeron-driver is an optional dependency: only modules that start drivers bring it).
 */
package dev.offcache.core.media;
