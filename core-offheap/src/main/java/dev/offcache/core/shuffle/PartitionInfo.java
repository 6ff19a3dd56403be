package dev.offcache.core.shuffle;

import java.nio.file.Path;

/**
 * What a committed partition is: where it lives, how many data bytes it holds (the footer excluded) and their
 * CRC32C. Returned by {@link PartitionWriter#commit()}; a registry records it as a partition location.
 *
 * @param id     of the partition.
 * @param path   of the committed file.
 * @param length of the data in bytes, footer excluded.
 * @param crc32c of the data bytes.
 */
public record PartitionInfo(PartitionId id, Path path, long length, int crc32c)
{
}
