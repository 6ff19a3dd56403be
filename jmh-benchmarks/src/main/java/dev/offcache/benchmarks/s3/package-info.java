/**
 * Benchmarks of the L2 server's S3 API reads.
 */
package dev.offcache.benchmarks.s3;
