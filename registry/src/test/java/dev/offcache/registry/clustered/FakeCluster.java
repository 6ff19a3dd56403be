package dev.offcache.registry.clustered;

import java.lang.reflect.Proxy;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.aeron.cluster.service.ClientSession;
import io.aeron.cluster.service.Cluster;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.NoOpIdleStrategy;

/**
 * A stand-in cluster and client session for driving a {@link RegistryClusteredService} directly (no Aeron): the
 * session records every message the service offers it; the cluster gives millisecond time, a no-op idle strategy
 * and that one session.
 */
final class FakeCluster
{
    private FakeCluster()
    {
    }

    static ClientSession session(final long id, final List<byte[]> sent)
    {
        return (ClientSession) Proxy.newProxyInstance(FakeCluster.class.getClassLoader(),
            new Class<?>[]{ClientSession.class}, (proxy, method, args) ->
            {
                if (method.getName().equals("id"))
                {
                    return id;
                }
                if (method.getName().equals("offer") && args.length == 3)
                {
                    final DirectBuffer buffer = (DirectBuffer) args[0];
                    final byte[] bytes = new byte[(Integer) args[2]];
                    buffer.getBytes((Integer) args[1], bytes);
                    sent.add(bytes);
                    return 1L;
                }
                throw new UnsupportedOperationException(method.getName());
            });
    }

    static Cluster cluster(final ClientSession session)
    {
        return (Cluster) Proxy.newProxyInstance(FakeCluster.class.getClassLoader(), new Class<?>[]{Cluster.class},
            (proxy, method, args) ->
            {
                switch (method.getName())
                {
                    case "timeUnit":
                        return TimeUnit.MILLISECONDS;
                    case "idleStrategy":
                        return NoOpIdleStrategy.INSTANCE;
                    case "getClientSession":
                        return session;
                    default:
                        throw new UnsupportedOperationException(method.getName());
                }
            });
    }
}
