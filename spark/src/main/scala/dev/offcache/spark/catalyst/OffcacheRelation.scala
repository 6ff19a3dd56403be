package dev.offcache.spark.catalyst

import org.apache.spark.sql.catalyst.analysis.MultiInstanceRelation
import org.apache.spark.sql.catalyst.expressions.Attribute
import org.apache.spark.sql.catalyst.plans.logical.{LeafNode, LogicalPlan, Statistics}
import org.apache.spark.sql.classic.SparkSession
import org.apache.spark.sql.execution.QueryExecution

import dev.offcache.registry.state.CacheKey

/**
 * The logical leaf of a DataFrame cached by offcache: its key and output, and the cached query (`source`) as a field,
 * not a child, as Spark's `InMemoryRelation` holds its plan, so the optimizer never rewrites into it. Statistics
 * are the source's, so join and broadcast decisions stay as they were.
 */
case class OffcacheRelation(key: CacheKey, output: Seq[Attribute], source: QueryExecution)
  extends LeafNode with MultiInstanceRelation {

  override def newInstance(): OffcacheRelation = copy(output = output.map(_.newInstance()))

  override def computeStats(): Statistics = source.optimizedPlan.stats

  override protected def stringArgs: Iterator[Any] = Iterator(key.cacheId, output)
}

/** Building and finding offcache relations (called from Java). */
object OffcacheRelation {

  /** A relation over `source`'s output (fresh attribute ids, so the cached frame joins its own source cleanly). */
  def of(key: CacheKey, source: QueryExecution): OffcacheRelation =
    OffcacheRelation(key, source.analyzed.output.map(_.newInstance()), source)

  /** The key of the first offcache relation in a plan, or null. */
  def firstKey(plan: LogicalPlan): CacheKey = plan.collectFirst { case r: OffcacheRelation => r.key }.orNull

  /** Adds offcache's planner strategy to a session that has neither it nor the SQL extension. */
  def installStrategy(session: SparkSession): Unit = synchronized {
    val experimental = session.experimental
    if (!experimental.extraStrategies.contains(OffcacheStrategy)) {
      experimental.extraStrategies = experimental.extraStrategies :+ OffcacheStrategy
    }
  }
}
