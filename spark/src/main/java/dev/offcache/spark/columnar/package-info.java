/**
 * The columnar layout of a cached partition: written column by column in batches by the materialization task, read
 * back as Spark {@code ColumnVector}s that point into the mapped (or fetched) file, so a query decodes only the
 * columns it references.
 */
package dev.offcache.spark.columnar;
