import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.DefaultFileRegion;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;

/**
 * The Netty floor for the L2-vs-nginx comparison, beside the C one (floor-server.c): the least a server on the L2's
 * own stack (Java, Netty's epoll transport, the same number of event loops) does per Range GET. No HTTP codec (the
 * request bytes are scanned by hand for the end of the headers and {@code Range: bytes=A-B}), no cache, no checks;
 * the 206 headers go out from one pooled buffer, the body as a view of a mapping of the file ({@code memory}: a copy
 * into the socket, as the L2's RAM tier does) or as a file region ({@code sendfile}, as its SSD tier does). Any other
 * request gets an empty 200. A measuring stick, not a server.
 *
 * <p>Run (single-file source launch): {@code java -cp offcache-server.jar NettyFloor.java PORT FILE memory|sendfile
 * EVENT_LOOPS}; {@code FLOOR=netty-memory} or {@code FLOOR=netty-sendfile} makes l2-vs-nginx.sh do it.
 */
public final class NettyFloor
{
    private static MappedByteBuffer mapped;
    private static FileChannel file;
    private static long size;

    private NettyFloor()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        if (args.length != 4)
        {
            System.err.println("usage: NettyFloor PORT FILE memory|sendfile EVENT_LOOPS");
            System.exit(2);
        }
        final int port = Integer.parseInt(args[0]);
        final boolean sendfile = "sendfile".equals(args[2]);
        file = FileChannel.open(Path.of(args[1]));
        size = file.size();
        if (!sendfile)
        {
            if (size > Integer.MAX_VALUE)
            {
                System.err.println("memory mode maps the whole file: at most 2 GiB, not " + size + " bytes");
                System.exit(2);
            }
            mapped = file.map(FileChannel.MapMode.READ_ONLY, 0, size);
            mapped.load();
        }
        final MultiThreadIoEventLoopGroup group =
            new MultiThreadIoEventLoopGroup(Integer.parseInt(args[3]), EpollIoHandler.newFactory());
        new ServerBootstrap().group(group).channel(EpollServerSocketChannel.class)
            .childOption(ChannelOption.TCP_NODELAY, true)
            .childHandler(new ChannelInitializer<Channel>()
            {
                @Override
                protected void initChannel(final Channel channel)
                {
                    channel.pipeline().addLast(new RangeAnswers(sendfile));
                }
            })
            .bind("127.0.0.1", port).sync();
        System.err.println("netty floor on 127.0.0.1:" + port + ", " + args[2] + ", " + args[3] + " event loops");
    }

    /** A file region over the shared channel that leaves it open when released. */
    private static final class SharedFileRegion extends DefaultFileRegion
    {
        SharedFileRegion(final long position, final long count)
        {
            super(file, position, count);
        }

        @Override
        protected void deallocate()
        {
            // the channel is shared by every region: closed with the process
        }
    }

    private static final class RangeAnswers extends ChannelInboundHandlerAdapter
    {
        private static final byte[] RANGE = "\nrange: bytes=".getBytes(StandardCharsets.US_ASCII);
        private final boolean sendfile;
        private ByteBuf pending;

        RangeAnswers(final boolean sendfile)
        {
            this.sendfile = sendfile;
        }

        @Override
        public void channelRead(final ChannelHandlerContext ctx, final Object msg) throws IOException
        {
            final ByteBuf in = null == pending ? (ByteBuf)msg : Unpooled.wrappedBuffer(pending, (ByteBuf)msg);
            pending = null;
            int end;
            while ((end = headersEnd(in)) >= 0)
            {
                final int range = find(in, end);
                in.readerIndex(end + 4);
                final ByteBuf head = ctx.alloc().directBuffer(192);
                if (range < 0)
                {
                    head.writeCharSequence("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", StandardCharsets.US_ASCII);
                    ctx.write(head, ctx.voidPromise());
                    continue;
                }
                int i = range + RANGE.length;
                long first = 0;
                while (in.getByte(i) != '-')
                {
                    first = first * 10 + in.getByte(i++) - '0';
                }
                i++;
                long last = 0;
                while (in.getByte(i) >= '0' && in.getByte(i) <= '9')
                {
                    last = last * 10 + in.getByte(i++) - '0';
                }
                final long length = last - first + 1;
                head.writeCharSequence("HTTP/1.1 206 Partial Content\r\nContent-Type: application/octet-stream\r\n" +
                    "Content-Length: " + length + "\r\nContent-Range: bytes " + first + "-" + last + "/" + size +
                    "\r\n\r\n", StandardCharsets.US_ASCII);
                ctx.write(head, ctx.voidPromise());
                if (sendfile)
                {
                    ctx.write(new SharedFileRegion(first, length), ctx.voidPromise());
                }
                else
                {
                    final ByteBuffer body = mapped.slice((int)first, (int)length);
                    ctx.write(Unpooled.wrappedBuffer(body), ctx.voidPromise());
                }
            }
            if (in.isReadable())
            {
                pending = in;
            }
            else
            {
                in.release();
            }
        }

        @Override
        public void channelReadComplete(final ChannelHandlerContext ctx)
        {
            ctx.flush();
        }

        @Override
        public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause)
        {
            // wrk closes its connections mid-response when a run ends
            ctx.close();
        }

        @Override
        public void channelInactive(final ChannelHandlerContext ctx)
        {
            if (null != pending)
            {
                pending.release();
                pending = null;
            }
        }

        private static int headersEnd(final ByteBuf buf)
        {
            for (int i = buf.readerIndex(); i + 3 < buf.writerIndex(); i++)
            {
                if (buf.getByte(i) == '\r' && buf.getByte(i + 1) == '\n' && buf.getByte(i + 2) == '\r' &&
                    buf.getByte(i + 3) == '\n')
                {
                    return i;
                }
            }
            return -1;
        }

        /** Where the Range header starts (its name in any case), or -1. */
        private static int find(final ByteBuf buf, final int limit)
        {
            outer:
            for (int i = buf.readerIndex(); i + RANGE.length <= limit; i++)
            {
                for (int j = 0; j < RANGE.length; j++)
                {
                    final byte b = buf.getByte(i + j);
                    if ((j > 0 && j < 6 ? (byte)(b | 0x20) : b) != RANGE[j])
                    {
                        continue outer;
                    }
                }
                return i;
            }
            return -1;
        }
    }
}
