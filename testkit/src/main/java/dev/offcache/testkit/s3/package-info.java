/**
 * S3Proxy in process, with counters of what reached the origin.
 */
package dev.offcache.testkit.s3;
