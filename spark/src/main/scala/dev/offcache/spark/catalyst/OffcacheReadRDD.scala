package dev.offcache.spark.catalyst

import scala.util.control.NonFatal

import org.apache.spark.{Partition, TaskContext}
import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow

import dev.offcache.registry.state.PartitionLocation
import dev.offcache.spark.OffcacheExecutor

/** Where one cached partition lives (sent to the tasks). */
final case class CachedPartition(executorId: String, host: String, jobId: String, stageId: Int, partitionId: Int,
    path: String, length: Long, crc32c: Long) {
  def location: PartitionLocation =
    new PartitionLocation(executorId, jobId, stageId, partitionId, path, length, crc32c)
}

private final class ReadPartition(override val index: Int, val parent: Partition) extends Partition

/**
 * Reads a materialization back: one partition per cached partition, preferring the executor that holds it
 * (`executor_<host>_<id>`). On that executor the file is mapped (rows point into the mapping; unmapped when the
 * task completes); elsewhere it is fetched over Aeron. A partition that cannot be read (file gone or damaged,
 * executor gone) is reported to the driver, which drops the materialization, and is recomputed from the lineage
 * (a one-to-one dependency on the source's RDD): the action gets the same rows either way.
 */
final class OffcacheReadRDD(
    @transient private val lineage: RDD[InternalRow],
    sessionId: String,
    cacheId: String,
    jobId: String,
    cached: Array[CachedPartition],
    numFields: Int)
  extends RDD[InternalRow](lineage) {

  override protected def getPartitions: Array[Partition] =
    Array.tabulate[Partition](cached.length)(i => new ReadPartition(i, lineage.partitions(i)))

  override protected def getPreferredLocations(split: Partition): Seq[String] = {
    val partition = cached(split.index)
    Seq(s"executor_${partition.host}_${partition.executorId}")
  }

  override def compute(split: Partition, context: TaskContext): Iterator[InternalRow] = {
    val executor = OffcacheExecutor.current()
    if (executor != null) {
      try {
        val opened = executor.opener.open(cached(split.index).location)
        context.addTaskCompletionListener[Unit](_ => opened.close())
        return new MappedRows(opened.buffer, numFields)
      } catch {
        case NonFatal(e) => executor.readFailed(sessionId, cacheId, jobId, split.index, e)
      }
    }
    firstParent[InternalRow].iterator(split.asInstanceOf[ReadPartition].parent, context)
  }
}
