package dev.offcache.server.http;

import io.netty.channel.IoHandlerFactory;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.uring.IoUring;
import io.netty.channel.uring.IoUringIoHandler;
import io.netty.channel.uring.IoUringServerSocketChannel;

/**
 * The Netty transport the server runs on. {@link #AUTO} picks native epoll when it loads, else io_uring, else
 * NIO; asking for a native transport that is not available fails at start with the reason.
 */
public enum TransportKind
{
    /** The best available: epoll, then io_uring, then NIO. */
    AUTO,
    /** Linux native epoll (supports sendfile for file regions). */
    EPOLL,
    /** Linux native io_uring. */
    IO_URING,
    /** Java NIO, everywhere. */
    NIO;

    /**
     * Resolves {@link #AUTO} and checks availability.
     *
     * @return a concrete transport.
     */
    public TransportKind resolve()
    {
        switch (this)
        {
            case AUTO:
                if (Epoll.isAvailable())
                {
                    return EPOLL;
                }
                return IoUring.isAvailable() ? IO_URING : NIO;
            case EPOLL:
                if (!Epoll.isAvailable())
                {
                    throw new IllegalStateException("epoll transport unavailable", Epoll.unavailabilityCause());
                }
                return this;
            case IO_URING:
                if (!IoUring.isAvailable())
                {
                    throw new IllegalStateException("io_uring transport unavailable", IoUring.unavailabilityCause());
                }
                return this;
            default:
                return this;
        }
    }

    IoHandlerFactory ioHandlerFactory()
    {
        switch (this)
        {
            case EPOLL:
                return EpollIoHandler.newFactory();
            case IO_URING:
                return IoUringIoHandler.newFactory();
            case NIO:
                return NioIoHandler.newFactory();
            default:
                throw new IllegalStateException("resolve() the transport first: " + this);
        }
    }

    Class<? extends ServerChannel> serverChannelClass()
    {
        switch (this)
        {
            case EPOLL:
                return EpollServerSocketChannel.class;
            case IO_URING:
                return IoUringServerSocketChannel.class;
            case NIO:
                return NioServerSocketChannel.class;
            default:
                throw new IllegalStateException("resolve() the transport first: " + this);
        }
    }
}
