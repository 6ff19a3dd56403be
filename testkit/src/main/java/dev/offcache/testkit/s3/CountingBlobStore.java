package dev.offcache.testkit.s3;

import java.util.function.Supplier;

import org.jclouds.blobstore.BlobStore;
import org.jclouds.blobstore.domain.Blob;
import org.jclouds.blobstore.domain.BlobMetadata;
import org.jclouds.blobstore.domain.PageSet;
import org.jclouds.blobstore.domain.StorageMetadata;
import org.jclouds.blobstore.options.GetOptions;
import org.jclouds.blobstore.options.ListContainerOptions;
import org.jclouds.blobstore.util.ForwardingBlobStore;

/**
 * A blob store that counts what S3Proxy asks of it: object reads and the bytes they return (the range the blob
 * store cut), metadata requests and listings.
 */
final class CountingBlobStore extends ForwardingBlobStore
{
    private final Supplier<OriginCounters> counters;

    CountingBlobStore(final BlobStore delegate, final Supplier<OriginCounters> counters)
    {
        super(delegate);
        this.counters = counters;
    }

    @Override
    public Blob getBlob(final String container, final String name)
    {
        return counted(container + "/" + name, super.getBlob(container, name));
    }

    @Override
    public Blob getBlob(final String container, final String name, final GetOptions options)
    {
        return counted(container + "/" + name, super.getBlob(container, name, options));
    }

    @Override
    public BlobMetadata blobMetadata(final String container, final String name)
    {
        counters.get().head();
        return super.blobMetadata(container, name);
    }

    @Override
    public PageSet<? extends StorageMetadata> list(final String container)
    {
        counters.get().list();
        return super.list(container);
    }

    @Override
    public PageSet<? extends StorageMetadata> list(final String container, final ListContainerOptions options)
    {
        counters.get().list();
        return super.list(container, options);
    }

    private Blob counted(final String key, final Blob blob)
    {
        final OriginCounters count = counters.get();
        count.get();
        if (blob == null || blob.getPayload() == null)
        {
            return blob;
        }
        // The blob store has already cut the payload to the requested range: its length is what the proxy sends.
        final Long length = blob.getPayload().getContentMetadata().getContentLength();
        if (length != null)
        {
            count.bytes(key, length);
        }
        return blob;
    }
}
