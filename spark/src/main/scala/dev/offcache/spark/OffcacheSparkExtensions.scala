package dev.offcache.spark

import org.apache.spark.sql.SparkSessionExtensions

import dev.offcache.spark.catalyst.OffcacheStrategy

/**
 * `spark.sql.extensions=dev.offcache.spark.OffcacheSparkExtensions`: plans offcache's cached relation in every
 * session from the start. Optional: `OffcacheDatasets.cache` adds the same strategy to a session that lacks it.
 */
class OffcacheSparkExtensions extends (SparkSessionExtensions => Unit) {
  override def apply(extensions: SparkSessionExtensions): Unit = {
    extensions.injectPlannerStrategy(_ => OffcacheStrategy)
  }
}
