/**
 * Spark 4 benchmarks of cached DataFrames, offcache beside Spark's own cache variants, and the local-cluster fixture
 * that runs several executor JVMs from a plain JVM (their own jar: Spark brings Netty 4.1).
 */
package dev.offcache.benchmarks.spark;
