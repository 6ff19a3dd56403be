package dev.offcache.server.tier;

import java.nio.file.Path;

import dev.offcache.range.store.FetchClass;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * A child process for the kill -9 test: writes prefetch blocks (straight to the SSD tier) as fast as it can, and
 * says "ready" once some are published, until it is killed.
 */
public final class SsdWriterChild
{
    private SsdWriterChild()
    {
    }

    /**
     * Runs until killed.
     *
     * @param args the SSD directory.
     */
    public static void main(final String[] args)
    {
        final TestNames names = new TestNames(1);
        final TieredBlockStore store = TieredBlockStore.open(new TieredBlockStore.Context()
            .blockSize(KillNineRecoveryTest.BLOCK)
            .ramCapacityBytes(4L * KillNineRecoveryTest.BLOCK)
            .ssdCapacityBytes(1L << 30)
            .ssdDir(Path.of(args[0]))
            .names(names));
        for (long i = 0; ; i++)
        {
            final int length = KillNineRecoveryTest.lengthOf(i);
            final byte[] bytes = TieredBlockStoreTest.content("k" + (i % 50), i, length);
            store.put(names.blockKey("k" + (i % 50), i), new UnsafeBuffer(bytes), 0, length, FetchClass.PREFETCH);
            if (i == 20)
            {
                System.out.println("ready");
                System.out.flush();
            }
        }
    }
}
