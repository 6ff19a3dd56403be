/**
 * The S3 origin, on the AWS SDK v2 async client, kept out of the engine core.
 */
package dev.offcache.origin.s3;
