package dev.offcache.benchmarks.transport;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;

/**
 * Client of {@link NettyPayloadServer}: one fetch at a time over one TCP connection, the response copied from
 * Netty's buffers straight into the caller's direct {@link ByteBuffer} (the same one copy the Aeron client makes
 * from the term buffer).
 */
public final class NettyPayloadClient implements AutoCloseable
{
    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    private final Channel channel;
    private final ResponseHandler handler = new ResponseHandler();

    /**
     * Connects to a {@link NettyPayloadServer} on 127.0.0.1.
     *
     * @param port the server's port.
     */
    public NettyPayloadClient(final int port)
    {
        channel = new Bootstrap()
            .group(group)
            .channel(NioSocketChannel.class)
            .option(ChannelOption.TCP_NODELAY, true)
            .handler(new ChannelInitializer<SocketChannel>()
            {
                protected void initChannel(final SocketChannel ch)
                {
                    ch.pipeline().addLast(handler);
                }
            })
            .connect("127.0.0.1", port).syncUninterruptibly().channel();
    }

    /**
     * Fetches a whole registered buffer into {@code destination}; one fetch at a time.
     *
     * @param id          the name.
     * @param destination where the bytes go.
     * @return the bytes fetched.
     */
    public CompletableFuture<Long> fetch(final String id, final ByteBuffer destination)
    {
        final CompletableFuture<Long> future = new CompletableFuture<>();
        handler.expect(destination, future);
        final ByteBuf request = channel.alloc().directBuffer(4 + id.length() + 16);
        request.writeIntLE(id.length());
        request.writeCharSequence(id, StandardCharsets.US_ASCII);
        request.writeLongLE(0).writeLongLE(-1);
        channel.writeAndFlush(request);
        return future;
    }

    /**
     * Closes the connection and the event loop.
     */
    @Override
    public void close()
    {
        channel.close().syncUninterruptibly();
        group.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS).syncUninterruptibly();
    }

    private static final class ResponseHandler extends ChannelInboundHandlerAdapter
    {
        private ByteBuffer destination;
        private CompletableFuture<Long> future;
        private long total;
        private int headerBytes;
        private long received;

        void expect(final ByteBuffer destination, final CompletableFuture<Long> future)
        {
            this.destination = destination;
            this.future = future;
            this.total = 0;
            this.headerBytes = 0;
            this.received = 0;
        }

        public void channelRead(final ChannelHandlerContext ctx, final Object msg)
        {
            final ByteBuf in = (ByteBuf) msg;
            try
            {
                while (headerBytes < 8 && in.isReadable())
                {
                    total |= (in.readByte() & 0xFFL) << (8 * headerBytes++);
                }
                if (headerBytes < 8)
                {
                    return;
                }
                if (total < 0)
                {
                    future.completeExceptionally(new IllegalStateException("unknown block"));
                    return;
                }
                final int length = (int) Math.min(in.readableBytes(), total - received);
                if (length > 0)
                {
                    destination.limit((int) received + length).position((int) received);
                    in.readBytes(destination);
                    received += length;
                }
                if (received == total)
                {
                    future.complete(total);
                }
            }
            finally
            {
                in.release();
            }
        }

        public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause)
        {
            if (future != null)
            {
                future.completeExceptionally(cause);
            }
            ctx.close();
        }
    }
}
