/**
 * End-to-end benchmarks: the cached-dataset coordinator against recomputing a job.
 */
package dev.offcache.benchmarks.e2e;
