package dev.offcache.spark.catalyst

import scala.jdk.CollectionConverters._
import scala.reflect.ClassTag
import scala.util.control.NonFatal

import org.agrona.DirectBuffer
import org.apache.spark.{Partition, TaskContext}
import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.vectorized.ColumnarBatch

import dev.offcache.registry.state.PartitionLocation
import dev.offcache.spark.OffcacheExecutor
import dev.offcache.spark.columnar.{ColumnarBatches, RowBatches}

/** Where one cached partition lives (sent to the tasks). */
final case class CachedPartition(executorId: String, host: String, jobId: String, stageId: Int, partitionId: Int,
    path: String, length: Long, crc32c: Long) {
  def location: PartitionLocation =
    new PartitionLocation(executorId, jobId, stageId, partitionId, path, length, crc32c)
}

private final class ReadPartition(override val index: Int, val parent: Partition) extends Partition

/**
 * How a scan reads a cached partition, and what it makes of the lineage's rows when it must compute instead: rows
 * ([[RowFormat]]) or columnar batches ([[ColumnarFormat]]), as the partitions were written ([[PartitionWrite]]).
 */
sealed trait ReadFormat[T] extends Serializable {
  /** The partition's contents, read where they lie in `buffer` (valid until the task ends). */
  def read(buffer: DirectBuffer, context: TaskContext): Iterator[T]

  /** The lineage's rows of one partition, in this format. */
  def fromRows(rows: Iterator[InternalRow], context: TaskContext): Iterator[T]

  /** The whole lineage in this format (the scan's answer when offcache cannot serve an action). */
  def fromLineage(lineage: RDD[InternalRow]): RDD[T]
}

/** Partitions in the row layout, read as `UnsafeRow`s pointing into the buffer. */
final case class RowFormat(numFields: Int) extends ReadFormat[InternalRow] {
  override def read(buffer: DirectBuffer, context: TaskContext): Iterator[InternalRow] =
    new MappedRows(buffer, numFields)

  override def fromRows(rows: Iterator[InternalRow], context: TaskContext): Iterator[InternalRow] = rows

  override def fromLineage(lineage: RDD[InternalRow]): RDD[InternalRow] = lineage
}

/** Partitions in the columnar layout, read as batches of vectors over the buffer. */
final case class ColumnarFormat(schema: StructType) extends ReadFormat[ColumnarBatch] {
  override def read(buffer: DirectBuffer, context: TaskContext): Iterator[ColumnarBatch] =
    new ColumnarBatches(buffer, schema).asScala

  override def fromRows(rows: Iterator[InternalRow], context: TaskContext): Iterator[ColumnarBatch] = {
    val batches = new RowBatches(rows.asJava, schema)
    context.addTaskCompletionListener[Unit](_ => batches.close())
    batches.asScala
  }

  override def fromLineage(lineage: RDD[InternalRow]): RDD[ColumnarBatch] = {
    val format = this
    lineage.mapPartitions(rows => format.fromRows(rows, TaskContext.get()))
  }
}

/**
 * Reads a materialization back: one partition per cached partition, preferring the executor that holds it
 * (`executor_<host>_<id>`). On that executor the file is mapped (rows or column vectors point into the mapping;
 * unmapped when the task completes); elsewhere it is fetched over Aeron. A partition that cannot be read (file gone
 * or damaged, executor gone) is reported to the driver, which drops the materialization, and is recomputed from the
 * lineage (a one-to-one dependency on the source's RDD): the action gets the same rows either way.
 */
final class OffcacheReadRDD[T: ClassTag](
    @transient private val lineage: RDD[InternalRow],
    sessionId: String,
    cacheId: String,
    jobId: String,
    cached: Array[CachedPartition],
    format: ReadFormat[T])
  extends RDD[T](lineage) {

  override protected def getPartitions: Array[Partition] =
    Array.tabulate[Partition](cached.length)(i => new ReadPartition(i, lineage.partitions(i)))

  override protected def getPreferredLocations(split: Partition): Seq[String] = {
    val partition = cached(split.index)
    Seq(s"executor_${partition.host}_${partition.executorId}")
  }

  override def compute(split: Partition, context: TaskContext): Iterator[T] = {
    val executor = OffcacheExecutor.current()
    if (executor != null) {
      try {
        val opened = executor.opener.open(cached(split.index).location)
        context.addTaskCompletionListener[Unit](_ => opened.close())
        return format.read(opened.buffer, context)
      } catch {
        case NonFatal(e) => executor.readFailed(sessionId, cacheId, jobId, split.index, e)
      }
    }
    format.fromRows(firstParent[InternalRow].iterator(split.asInstanceOf[ReadPartition].parent, context), context)
  }
}
