/**
 * Benchmarks of the registry's commands, in process and replicated by Aeron Cluster.
 */
package dev.offcache.benchmarks.registry;
