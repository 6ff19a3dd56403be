package dev.offcache.spark.catalyst

import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.execution.{SparkPlan, SparkStrategy}

/** Plans an [[OffcacheRelation]] as an [[OffcacheScanExec]]. */
object OffcacheStrategy extends SparkStrategy {
  override def apply(plan: LogicalPlan): Seq[SparkPlan] = plan match {
    case relation: OffcacheRelation => OffcacheScanExec(relation.key.sessionId, relation.key.cacheId, relation.output, relation.source) :: Nil
    case _ => Nil
  }
}
