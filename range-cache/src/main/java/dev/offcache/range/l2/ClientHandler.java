package dev.offcache.range.l2;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;

/**
 * The last handler of an L2 connection: hands response parts to the exchange that owns the connection now, and
 * drops (releases) anything that arrives while none does. Runs on the connection's event loop only.
 */
final class ClientHandler extends ChannelInboundHandlerAdapter
{
    private Exchange current;

    void attach(final Exchange exchange)
    {
        current = exchange;
    }

    void detach()
    {
        current = null;
    }

    @Override
    public void channelRead(final ChannelHandlerContext ctx, final Object msg)
    {
        final Exchange exchange = current;
        if (exchange == null)
        {
            ReferenceCountUtil.release(msg);
            ctx.close();
            return;
        }
        exchange.onMessage(msg);
    }

    @Override
    public void channelInactive(final ChannelHandlerContext ctx)
    {
        final Exchange exchange = current;
        current = null;
        if (exchange != null)
        {
            exchange.onBroken(null);
        }
    }

    @Override
    public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause)
    {
        final Exchange exchange = current;
        current = null;
        ctx.close();
        if (exchange != null)
        {
            exchange.onBroken(cause);
        }
    }
}
