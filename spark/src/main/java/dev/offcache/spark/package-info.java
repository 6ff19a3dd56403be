/**
 * offcache's {@code df.cache()} for Apache Spark: the user API, the Spark plugin and the driver and executor parts.
 */
package dev.offcache.spark;
