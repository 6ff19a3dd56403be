/**
 * offcache-demo: a local S3 origin (S3Proxy on 127.0.0.1) with a sample Parquet dataset, and a sample Spark job
 * reading it through the runtime jar.
 */
package dev.offcache.demo;
