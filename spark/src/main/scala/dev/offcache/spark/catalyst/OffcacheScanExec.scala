package dev.offcache.spark.catalyst

import java.util.concurrent.TimeUnit

import scala.jdk.CollectionConverters._
import scala.reflect.ClassTag
import scala.util.control.NonFatal

import org.apache.spark.internal.Logging
import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeMap, AttributeSet, Expression, SortOrder,
  UnsafeProjection}
import org.apache.spark.sql.catalyst.plans.physical.{HashPartitioning, Partitioning, PartitioningCollection,
  RangePartitioning, SinglePartition, UnknownPartitioning}
import org.apache.spark.sql.execution.{LeafExecNode, QueryExecution, SparkPlan}
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanExec
import org.apache.spark.sql.types.{StructField, StructType}
import org.apache.spark.sql.vectorized.ColumnarBatch

import dev.offcache.dataset.Resolved
import dev.offcache.registry.state.CacheKey
import dev.offcache.spark.OffcacheDriver
import dev.offcache.spark.columnar.{ColumnarBatches, ColumnarLayout}

/**
 * The physical scan of an [[OffcacheRelation]]. `doExecute()` runs on the driver, once per action: it resolves the
 * key (a miss runs the source as its own Spark job writing every partition into its executor's store; a hit runs
 * none; a concurrent action waits for the other's job), then returns an [[OffcacheReadRDD]] over the pinned output,
 * one partition per cached partition, whose lineage is the source's RDD. When offcache cannot serve the action (no
 * plugin, registry failure, failed materialization) it returns the source's RDD: slower, never wrong.
 */
case class OffcacheScanExec(sessionId: String, cacheId: String, output: Seq[Attribute],
    @transient source: QueryExecution) extends LeafExecNode {

  override protected def stringArgs: Iterator[Any] = Iterator(cacheId, output)

  /**
   * The cached query's own partitioning, in this node's attributes: the read-back keeps partition i of the source's
   * RDD as partition i (and so does the fallback, which is that RDD), so a join or aggregate on the same keys needs
   * no shuffle of the cached side. Only once the source's plan is final: an adaptive plan's partitioning (partitions
   * coalesced, joins switched) is known only after its first execution, which the first action on the cached frame
   * performs; until then, and for partitionings other than hash, range and single, nothing is claimed.
   */
  override def outputPartitioning: Partitioning = OffcacheScanExec.partitioning(source, output)

  /**
   * The cached query's row order within each partition, in this node's attributes (a sort-merge join or a
   * `sortWithinPartitions` on those keys then needs no sort): a partition is written in the order its rows came and
   * read back in that order, mapped, fetched or recomputed. As for the partitioning, only once the source's plan is
   * final, and only the leading sort keys that are columns of the cached output.
   */
  override def outputOrdering: Seq[SortOrder] = OffcacheScanExec.ordering(source, output)

  /**
   * Columnar when every column has a columnar form ([[ColumnarLayout]]): the partitions were written column by
   * column, and Spark's generated columnar-to-row code then reads only the columns a query references.
   */
  override def supportsColumnar: Boolean = ColumnarLayout.supports(schema)

  override def vectorTypes: Option[Seq[String]] =
    if (supportsColumnar) Some(Seq.fill(output.length)(ColumnarBatches.vectorClass())) else None

  // Physical plans travel with codegen'd tasks; only the driver executes this node, so the source stays behind.
  override protected def doExecuteColumnar(): RDD[ColumnarBatch] =
    OffcacheScanExec.execute(new CacheKey(sessionId, cacheId), output, source, ColumnarFormat(schema))

  override protected def doExecute(): RDD[InternalRow] = {
    if (supportsColumnar) {
      // Spark puts its columnar-to-row step above a columnar scan; this is for a caller that asks for rows anyway.
      val rowSchema = schema
      executeColumnar().mapPartitions { batches =>
        val toUnsafe = UnsafeProjection.create(rowSchema)
        batches.flatMap(batch => batch.rowIterator().asScala.map(toUnsafe))
      }
    } else {
      OffcacheScanExec.execute(new CacheKey(sessionId, cacheId), output, source, RowFormat(output.length))
    }
  }
}

/** The driver-side resolve behind [[OffcacheScanExec]]. */
object OffcacheScanExec extends Logging {
  private val ResolveTimeoutMinutes = 60L

  /** The source's physical plan once final (adaptive execution has run it), else None; None away from the driver. */
  private def finalPlan(source: QueryExecution): Option[SparkPlan] = {
    if (source == null) {
      return None // a copy deserialized away from the driver: nothing to plan with
    }
    source.executedPlan match {
      case adaptive: AdaptiveSparkPlanExec if adaptive.isFinalPlan => Some(adaptive.executedPlan)
      case _: AdaptiveSparkPlanExec => None
      case other => Some(other)
    }
  }

  /** See [[OffcacheScanExec.outputOrdering]]; empty when nothing can be claimed. */
  def ordering(source: QueryExecution, output: Seq[Attribute]): Seq[SortOrder] = {
    val plan = finalPlan(source).orNull
    if (plan == null) {
      return Nil
    }
    val attributes = AttributeMap(plan.output.zip(output))
    val inScope = AttributeSet(output)
    def rename(e: Expression): Expression = e.transform { case a: Attribute => attributes.getOrElse(a, a) }
    plan.outputOrdering.iterator.map { order =>
      order.copy(child = rename(order.child),
        sameOrderExpressions = order.sameOrderExpressions.map(rename).filter(_.references.subsetOf(inScope)))
    }.takeWhile(_.child.references.subsetOf(inScope)).toSeq
  }

  /** See [[OffcacheScanExec.outputPartitioning]]; `UnknownPartitioning(0)` when nothing can be claimed. */
  def partitioning(source: QueryExecution, output: Seq[Attribute]): Partitioning = {
    val plan = finalPlan(source).orNull
    if (plan == null) {
      return UnknownPartitioning(0)
    }
    val attributes = AttributeMap(plan.output.zip(output))
    def rename(p: Partitioning): Option[Partitioning] = p match {
      case p @ (_: HashPartitioning | _: RangePartitioning) =>
        val renamed = p.asInstanceOf[Expression].transform { case a: Attribute => attributes.getOrElse(a, a) }
        // Every key must be one of the cached output's columns, or the claim would name attributes not in scope.
        Some(renamed.asInstanceOf[Partitioning]).filter(_ => renamed.references.subsetOf(AttributeSet(output)))
      case SinglePartition => Some(SinglePartition)
      case PartitioningCollection(parts) =>
        parts.flatMap(rename) match {
          case Seq() => None
          case Seq(one) => Some(one)
          case several => Some(PartitioningCollection(several))
        }
      case _ => None
    }
    rename(plan.outputPartitioning).getOrElse(UnknownPartitioning(0))
  }

  def execute[T: ClassTag](key: CacheKey, output: Seq[Attribute], source: QueryExecution,
      format: ReadFormat[T]): RDD[T] = {
    val lineage = source.toRdd
    val driver = OffcacheDriver.current()
    if (driver == null || lineage.partitions.isEmpty) {
      return format.fromLineage(lineage)
    }
    val schema = StructType(output.map(a => StructField(a.name, a.dataType, a.nullable)))
    try {
      driver.resolve(key, MaterializeInput(key, lineage, schema)).get(ResolveTimeoutMinutes, TimeUnit.MINUTES) match {
        case cached: Resolved.Cached if cached.entry.locations.size == lineage.partitions.length =>
          val parts = cached.entry.locations.asScala.map { location =>
            val host = Option(driver.hostOf(location.executorId)).getOrElse("unknown")
            CachedPartition(location.executorId, host, location.jobId, location.stageId, location.partitionId,
              location.path, location.length, location.crc32c)
          }.toArray
          new OffcacheReadRDD[T](lineage, key.sessionId, key.cacheId, cached.entry.jobId, parts, format)
        case _ =>
          format.fromLineage(lineage)
      }
    } catch {
      case NonFatal(e) =>
        logWarning(s"offcache could not serve ${key.cacheId}; computing it from its lineage", e)
        driver.countFallback()
        format.fromLineage(lineage)
    }
  }
}

/** What a miss materializes: the key, the source's RDD and its schema. */
final case class MaterializeInput(key: CacheKey, lineage: RDD[InternalRow], schema: StructType)
