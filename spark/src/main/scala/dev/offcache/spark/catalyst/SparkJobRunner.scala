package dev.offcache.spark.catalyst

import java.nio.ByteBuffer

import java.util.concurrent.CompletableFuture

import scala.concurrent.ExecutionContext
import scala.util.{Failure, Success}
import scala.util.control.NonFatal

import org.agrona.BufferUtil
import org.agrona.concurrent.UnsafeBuffer
import org.apache.spark.{Partition, SparkContext, TaskContext}
import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.types.StructType
import org.apache.spark.unsafe.Platform

import dev.offcache.core.shuffle.{PartitionId, PartitionWriter}
import dev.offcache.dataset.{JobOutput, JobRunner}
import dev.offcache.registry.state.{DatasetSchema, PartitionLocation}
import dev.offcache.spark.{OffcacheExecutor, Salvage}
import dev.offcache.spark.columnar.{BatchWriter, ColumnarLayout}

/**
 * Materializes a cached source as its own Spark job (`SparkContext.submitJob`, whose future is the job's finish
 * event): each task writes its partition's rows into its executor's store and returns where they are. Jobs carry
 * the local property [[SparkJobRunner.JobProperty]] (the offcache job id), so listeners can tell them apart.
 */
final class SparkJobRunner(sc: SparkContext, salvage: Salvage) extends JobRunner[MaterializeInput] {

  override def run(jobId: String, input: MaterializeInput): CompletableFuture[JobOutput] = {
    val schema = input.schema
    val count = input.lineage.partitions.length
    val written = new Array[WrittenPartition](count)
    val done = new CompletableFuture[JobOutput]()
    val datasetSchema = new DatasetSchema(schema.json)
    // Partitions a lost executor's peers still hold for this key: their tasks prefer those executors and copy.
    val held = if (salvage == null) null else salvage.take(input.key, datasetSchema.description, count)
    val adopt = new Array[CachedPartition](count)
    if (held != null) {
      for (i <- 0 until count if held.locations()(i) != null) {
        val old = held.locations()(i)
        adopt(i) = CachedPartition(old.executorId, held.hosts()(i), old.jobId, old.stageId, old.partitionId, old.path,
          old.length, old.crc32c)
      }
    }
    val rdd = if (held == null) input.lineage else new AdoptingRDD(input.lineage, adopt)
    val previous = sc.getLocalProperty(SparkJobRunner.JobProperty)
    sc.setLocalProperty(SparkJobRunner.JobProperty, jobId)
    val future = try {
      sc.submitJob(rdd,
        (rows: Iterator[InternalRow]) => {
          val partition = TaskContext.get().partitionId()
          PartitionWrite.write(jobId, partition, schema, rows, adopt(partition))
        },
        0 until count,
        (index: Int, partition: WrittenPartition) => written(index) = partition,
        ())
    } catch {
      case e: Throwable =>
        if (held != null) {
          salvage.release(held, 0)
        }
        throw e
    } finally {
      sc.setLocalProperty(SparkJobRunner.JobProperty, previous)
    }
    future.onComplete { result =>
      if (held != null) {
        salvage.release(held, written.count(p => p != null && p.adopted))
      }
      result match {
        case Success(_) =>
          try {
            val locations = new java.util.ArrayList[PartitionLocation](count)
            written.zipWithIndex.foreach { case (p, index) =>
              locations.add(new PartitionLocation(p.executorId, jobId, 0, index, p.path, p.length,
                Integer.toUnsignedLong(p.crc32c)))
            }
            done.complete(new JobOutput(datasetSchema, locations))
          } catch {
            case e: Throwable => done.completeExceptionally(e)
          }
        case Failure(e) => done.completeExceptionally(e)
      }
    }(ExecutionContext.parasitic)
    done
  }
}

/**
 * A materialization's input with a preferred executor for each partition it may adopt (the executor still holding
 * that partition's file from before a loss, [[Salvage]]); other partitions keep the input's own preferences.
 */
final class AdoptingRDD(parent: RDD[InternalRow], adopt: Array[CachedPartition]) extends RDD[InternalRow](parent) {

  override protected def getPartitions: Array[Partition] = firstParent[InternalRow].partitions

  override protected def getPreferredLocations(split: Partition): Seq[String] = {
    val old = adopt(split.index)
    if (old == null) firstParent[InternalRow].preferredLocations(split)
    else Seq(s"executor_${old.host}_${old.executorId}")
  }

  override def compute(split: Partition, context: TaskContext): Iterator[InternalRow] =
    firstParent[InternalRow].iterator(split, context)
}

object SparkJobRunner {
  /** The local property naming the offcache job of a materialization job. */
  val JobProperty = "spark.offcache.materialization"
}

/** What one materialization task wrote (returned to the driver); `adopted` when copied from a salvaged file. */
final case class WrittenPartition(executorId: String, path: String, length: Long, crc32c: Int,
    adopted: Boolean = false)

/**
 * Writes one partition's rows into the executor's store, in the columnar layout ([[ColumnarLayout]]) when every column
 * has a columnar form, else each row as an 8-byte length and its `UnsafeRow` bytes, padded to 8 bytes; either way a
 * reader reads straight from the mapping. The store makes the file visible only once whole (CRC32C in its footer).
 */
object PartitionWrite {
  private val RegistrationTimeoutMs = 30000L
  private val AdoptChunkBytes = 16 << 20
  private val log = org.slf4j.LoggerFactory.getLogger(getClass)

  def write(jobId: String, partition: Int, schema: StructType, rows: Iterator[InternalRow],
      adopt: CachedPartition = null): WrittenPartition = {
    val executor = OffcacheExecutor.current()
    if (executor == null) {
      throw new IllegalStateException(
        "offcache is not running on this executor: set spark.plugins=dev.offcache.spark.OffcachePlugin")
    }
    executor.awaitRegistered(RegistrationTimeoutMs)
    if (adopt != null && adopt.executorId == executor.executorId) {
      val copied = adopted(executor, jobId, partition, adopt)
      if (copied != null) {
        return copied
      }
    }
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

  /**
   * Copies a salvaged partition's file into this materialization (the rows are not computed): its data checked
   * against the CRC the registry recorded, then written as this job's partition. Null when it cannot be (gone,
   * damaged, another executor's): the caller computes the partition instead.
   */
  private def adopted(executor: OffcacheExecutor, jobId: String, partition: Int,
      old: CachedPartition): WrittenPartition = {
    val mapped = try {
      val opened = executor.store.openPartition(
        new PartitionId(old.jobId, old.stageId, old.partitionId), java.nio.file.Paths.get(old.path))
      try {
        opened.verify()
        if (Integer.toUnsignedLong(opened.crc32c) != old.crc32c) {
          throw new IllegalStateException(s"CRC ${opened.crc32c} is not the recorded ${old.crc32c}")
        }
      } catch {
        case NonFatal(e) =>
          opened.close()
          throw e
      }
      opened
    } catch {
      case NonFatal(e) =>
        log.warn("offcache: cannot adopt {} for partition {} of {}, computing it: {}", old.path,
          Integer.valueOf(partition), jobId, e.toString)
        return null
    }
    try {
      val writer = executor.store.openWriter(new PartitionId(jobId, 0, partition))
      try {
        val view = new UnsafeBuffer(0L, 0)
        var offset = 0L
        while (offset < mapped.length) {
          // 16 MiB chunks never cross the mapping's 1 GiB boundaries.
          val chunk = Math.min(AdoptChunkBytes.toLong, mapped.length - offset).toInt
          mapped.wrap(view, offset, chunk)
          writer.write(view, 0, chunk)
          offset += chunk
        }
        val info = writer.commit()
        WrittenPartition(executor.executorId, info.path.toString, info.length, info.crc32c, adopted = true)
      } finally {
        writer.close()
      }
    } finally {
      mapped.close()
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

