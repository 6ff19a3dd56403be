package dev.offcache.spark.catalyst

import java.nio.ByteBuffer

import java.util.concurrent.CompletableFuture

import scala.concurrent.ExecutionContext
import scala.util.{Failure, Success}

import org.agrona.BufferUtil
import org.agrona.concurrent.UnsafeBuffer
import org.apache.spark.{SparkContext, TaskContext}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.types.StructType
import org.apache.spark.unsafe.Platform

import dev.offcache.core.shuffle.{PartitionId, PartitionWriter}
import dev.offcache.dataset.{JobOutput, JobRunner}
import dev.offcache.registry.state.{DatasetSchema, PartitionLocation}
import dev.offcache.spark.OffcacheExecutor
import dev.offcache.spark.columnar.{BatchWriter, ColumnarLayout}

/**
 * Materializes a cached source as its own Spark job (`SparkContext.submitJob`, whose future is the job's finish
 * event): each task writes its partition's rows into its executor's store and returns where they are. Jobs carry
 * the local property [[SparkJobRunner.JobProperty]] (the offcache job id), so listeners can tell them apart.
 */
final class SparkJobRunner(sc: SparkContext) extends JobRunner[MaterializeInput] {

  override def run(jobId: String, input: MaterializeInput): CompletableFuture[JobOutput] = {
    val rdd = input.lineage
    val schema = input.schema
    val count = rdd.partitions.length
    val written = new Array[WrittenPartition](count)
    val done = new CompletableFuture[JobOutput]()
    val previous = sc.getLocalProperty(SparkJobRunner.JobProperty)
    sc.setLocalProperty(SparkJobRunner.JobProperty, jobId)
    val future = try {
      sc.submitJob(rdd,
        (rows: Iterator[InternalRow]) => PartitionWrite.write(jobId, TaskContext.get().partitionId(), schema, rows),
        0 until count,
        (index: Int, partition: WrittenPartition) => written(index) = partition,
        ())
    } finally {
      sc.setLocalProperty(SparkJobRunner.JobProperty, previous)
    }
    future.onComplete {
      case Success(_) =>
        try {
          val locations = new java.util.ArrayList[PartitionLocation](count)
          written.zipWithIndex.foreach { case (p, index) =>
            locations.add(new PartitionLocation(p.executorId, jobId, 0, index, p.path, p.length,
              Integer.toUnsignedLong(p.crc32c)))
          }
          done.complete(new JobOutput(new DatasetSchema(schema.json), locations))
        } catch {
          case e: Throwable => done.completeExceptionally(e)
        }
      case Failure(e) => done.completeExceptionally(e)
    }(ExecutionContext.parasitic)
    done
  }
}

object SparkJobRunner {
  /** The local property naming the offcache job of a materialization job. */
  val JobProperty = "spark.offcache.materialization"
}

/** What one materialization task wrote (returned to the driver). */
final case class WrittenPartition(executorId: String, path: String, length: Long, crc32c: Int)

/**
 * Writes one partition's rows into the executor's store, in the columnar layout ([[ColumnarLayout]]) when every column
 * has a columnar form, else each row as an 8-byte length and its `UnsafeRow` bytes, padded to 8 bytes; either way a
 * reader reads straight from the mapping. The store makes the file visible only once whole (CRC32C in its footer).
 */
object PartitionWrite {
  private val RegistrationTimeoutMs = 30000L

  def write(jobId: String, partition: Int, schema: StructType, rows: Iterator[InternalRow]): WrittenPartition = {
    val executor = OffcacheExecutor.current()
    if (executor == null) {
      throw new IllegalStateException(
        "offcache is not running on this executor: set spark.plugins=dev.offcache.spark.OffcachePlugin")
    }
    executor.awaitRegistered(RegistrationTimeoutMs)
    val writer = executor.store.openWriter(new PartitionId(jobId, 0, partition))
    try {
      if (ColumnarLayout.supports(schema)) {
        writeColumns(writer, schema, rows)
      } else {
        writeRows(writer, schema, rows)
      }
      val info = writer.commit()
      WrittenPartition(executor.executorId, info.path.toString, info.length, info.crc32c)
    } finally {
      writer.close()
    }
  }

  /** The columnar layout ([[ColumnarLayout]]): rows copied into column batches, each batch written when full. */
  private def writeColumns(writer: PartitionWriter, schema: StructType, rows: Iterator[InternalRow]): Unit = {
    val batches = new BatchWriter(schema)
    try {
      val sink: BatchWriter.Sink = (buffer, offset, length) => writer.write(buffer, offset, length)
      batches.start(sink)
      while (rows.hasNext) {
        batches.add(rows.next())
        if (batches.isFull) {
          batches.flush(sink)
        }
      }
      batches.flush(sink)
    } finally {
      batches.close()
    }
  }

  /** The row layout, for schemas with no columnar form: each row's `UnsafeRow` bytes after an 8-byte length. */
  private def writeRows(writer: PartitionWriter, schema: StructType, rows: Iterator[InternalRow]): Unit = {
    val projection = UnsafeProjection.create(schema)
    val header = new UnsafeBuffer(ByteBuffer.allocateDirect(16))
    try {
      val view = new UnsafeBuffer(0L, 0)
      var scratch = new Array[Byte](0)
      while (rows.hasNext) {
        val row = rows.next() match {
          case unsafe: UnsafeRow => unsafe
          case other => projection(other)
        }
        val size = row.getSizeInBytes
        header.putLong(0, size.toLong)
        writer.write(header, 0, 8)
        row.getBaseObject match {
          case bytes: Array[Byte] =>
            view.wrap(bytes, (row.getBaseOffset - Platform.BYTE_ARRAY_OFFSET).toInt, size)
          case null =>
            view.wrap(row.getBaseOffset, size)
          case other =>
            // A row in a sorter's on-heap page (a long[]): copied into one reused array, the only copy it needs.
            if (scratch.length < size) {
              scratch = new Array[Byte](Math.max(size, scratch.length * 2))
            }
            Platform.copyMemory(other, row.getBaseOffset, scratch, Platform.BYTE_ARRAY_OFFSET, size)
            view.wrap(scratch, 0, size)
        }
        writer.write(view, 0, size)
        val padding = MappedRows.padding(size)
        if (padding > 0) {
          header.putLong(8, 0L)
          writer.write(header, 8, padding)
        }
      }
    } finally {
      BufferUtil.free(header.byteBuffer())
    }
  }
}

/** Reads the rows [[PartitionWrite]] wrote, pointing one reused `UnsafeRow` into the buffer (zero copy). */
final class MappedRows(buffer: org.agrona.DirectBuffer, numFields: Int) extends Iterator[InternalRow] {
  if (ColumnarLayout.isColumnar(buffer)) {
    throw new IllegalStateException("a columnar partition where rows were expected")
  }
  private val address = buffer.addressOffset
  private val end = buffer.capacity
  private val row = new UnsafeRow(numFields)
  private var position = 0

  override def hasNext: Boolean = position < end

  override def next(): InternalRow = {
    val size = buffer.getLong(position).toInt
    row.pointTo(null, address + position + 8, size)
    position += 8 + size + MappedRows.padding(size)
    row
  }
}

object MappedRows {
  def padding(size: Int): Int = (8 - (size & 7)) & 7
}

