package dev.offcache.hadoop.fs;

import java.net.URI;
import java.util.Random;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.util.functional.FutureIO;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import dev.offcache.embed.JvmCaches;
import dev.offcache.testkit.s3.OriginCounters;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The adapter over real S3A against S3Proxy, counted at the origin: a cold read of a whole file is one GET of
 * exactly its bytes (runs are cut only at the 8 MiB cap) and no HEAD (the status is passed in); the warm read sends
 * nothing.
 */
class OffcacheS3ATest
{
    @AfterAll
    static void closeCaches()
    {
        JvmCaches.closeAll();
    }

    @Test
    void coldReadIsOneGetOfTheFileAndWarmReadSendsNothing() throws Exception
    {
        final Configuration conf = OffcacheS3AContract.configure(new Configuration());
        try (FileSystem fs = FileSystem.get(URI.create("s3a://" + OffcacheS3AContract.BUCKET + "/"), conf))
        {
            final Path path = new Path("s3a://" + OffcacheS3AContract.BUCKET + "/counted/part-0.bin");
            final byte[] data = new byte[200_000];
            new Random(9).nextBytes(data);
            try (FSDataOutputStream out = fs.create(path, true))
            {
                out.write(data);
            }
            final FileStatus status = fs.getFileStatus(path);
            final OriginCounters origin = OffcacheS3AContract.proxy().counters();
            origin.reset();
            for (int round = 0; round < 2; round++)
            {
                try (FSDataInputStream in = FutureIO.awaitFuture(fs.openFile(path).withFileStatus(status).build()))
                {
                    final byte[] got = new byte[data.length];
                    in.readFully(0, got);
                    assertArrayEquals(data, got);
                }
                assertEquals(0, origin.heads(), "round " + round + ": " + origin);
                // 13 blocks of 16 KiB, one contiguous run under the 8 MiB cap: one GET (runs are no longer cut at the
                // engine's read-ahead windows of 8 blocks, issue 13)
                assertEquals(1, origin.gets(), "round " + round + ": one coalesced GET of the file: " + origin);
                assertEquals(data.length, origin.bytes(), "round " + round + ": each byte once: " + origin);
            }
        }
    }
}
