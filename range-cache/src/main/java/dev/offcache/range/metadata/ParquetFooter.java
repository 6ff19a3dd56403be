package dev.offcache.range.metadata;

import org.apache.parquet.format.FileMetaData;

/**
 * A parsed Parquet footer and the number of footer bytes it was parsed from (its weight in the cache). The
 * {@link FileMetaData} is shared by every caller and must be treated as read-only.
 *
 * @param metaData    the parsed footer.
 * @param footerBytes the serialized footer's length, without the 8-byte trailer.
 */
public record ParquetFooter(FileMetaData metaData, int footerBytes)
{
}
