/**
 * The Catalyst nodes (Scala): the cached relation, its scan, the materialization job and the read-back RDD.
 */
package dev.offcache.spark.catalyst;
