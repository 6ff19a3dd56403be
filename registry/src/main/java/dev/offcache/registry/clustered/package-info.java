/**
 * The registry state machine replicated as an Aeron Cluster service, its client and its wire codec.
 */
package dev.offcache.registry.clustered;
