/**
 * The S3 API the L2 server speaks: SigV4 authentication, the buckets it serves, the object, list and multipart
 * operations, their headers, conditions and error codes, over the engine or straight over the origin.
 */
package dev.offcache.server.s3;
