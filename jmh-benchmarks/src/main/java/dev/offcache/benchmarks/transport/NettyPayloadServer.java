package dev.offcache.benchmarks.transport;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.ByteToMessageDecoder;
import org.agrona.DirectBuffer;

/**
 * The baseline: a plain Netty TCP request/response server on 127.0.0.1 serving the same mapped bytes as the
 * Aeron payload server, zero copy ({@link Unpooled#wrappedBuffer(long, int, boolean)} over the mapping's address).
 * Request: int32 id length, id (ASCII), int64 offset, int64 length (-1 = rest); response: int64 length, bytes
 * (all little-endian). One event loop thread; the memory stays owned by whoever registered it.
 */
public final class NettyPayloadServer implements AutoCloseable
{
    private final Map<String, ByteBuf> blocks = new ConcurrentHashMap<>();
    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    private final Channel channel;

    /**
     * Starts the server on an ephemeral port of 127.0.0.1.
     */
    public NettyPayloadServer()
    {
        channel = new ServerBootstrap()
            .group(group)
            .channel(NioServerSocketChannel.class)
            .childOption(ChannelOption.TCP_NODELAY, true)
            .childHandler(new ChannelInitializer<SocketChannel>()
            {
                protected void initChannel(final SocketChannel ch)
                {
                    ch.pipeline().addLast(new RequestHandler());
                }
            })
            .bind("127.0.0.1", 0).syncUninterruptibly().channel();
    }

    /**
     * Returns the bound port.
     *
     * @return the port.
     */
    public int port()
    {
        return ((InetSocketAddress) channel.localAddress()).getPort();
    }

    /**
     * Serves {@code mapped} under {@code id}; the caller keeps owning the memory.
     *
     * @param id     the name clients ask for.
     * @param mapped the bytes.
     */
    public void register(final String id, final DirectBuffer mapped)
    {
        blocks.put(id, Unpooled.wrappedBuffer(mapped.addressOffset(), mapped.capacity(), false));
    }

    /**
     * Stops the server.
     */
    @Override
    public void close()
    {
        channel.close().syncUninterruptibly();
        group.shutdownGracefully(0, 0, java.util.concurrent.TimeUnit.MILLISECONDS).syncUninterruptibly();
    }

    private final class RequestHandler extends ByteToMessageDecoder
    {
        protected void decode(final ChannelHandlerContext ctx, final ByteBuf in, final List<Object> out)
        {
            while (in.readableBytes() >= 4)
            {
                final int idLength = in.getIntLE(in.readerIndex());
                if (in.readableBytes() < 4 + idLength + 16)
                {
                    return;
                }
                in.skipBytes(4);
                final String id = in.readCharSequence(idLength, StandardCharsets.US_ASCII).toString();
                final long offset = in.readLongLE();
                final long length = in.readLongLE();
                final ByteBuf block = blocks.get(id);
                final int total = block == null ? 0 : (int) (length < 0 ? block.capacity() - offset : length);
                final ByteBuf header = ctx.alloc().directBuffer(8).writeLongLE(block == null ? -1 : total);
                if (block == null || total == 0)
                {
                    ctx.writeAndFlush(header);
                }
                else
                {
                    ctx.write(header);
                    ctx.writeAndFlush(block.retainedSlice((int) offset, total));
                }
            }
        }
    }
}
