/**
 * The registry state machine replicated as an Aeron Cluster service (with its snapshot), its client (with its agent)
 * and its wire codec.
 */
package dev.offcache.registry.clustered;
