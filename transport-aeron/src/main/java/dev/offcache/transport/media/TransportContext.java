package dev.offcache.transport.media;

import io.aeron.Aeron;
import org.agrona.concurrent.IdleStrategy;

import dev.offcache.core.config.ConcludeOnce;

/**
 * What a payload client's and a payload server's {@code Context} share, as Aeron's {@code CommonContext} holds what
 * its client and driver contexts share: the Aeron client, the request channel and stream (the server subscribes to
 * it, clients publish to it), how the agent's duty cycle idles, the fragments it reads per cycle, and its name.
 * Concluded once ({@link #concludeCommon()} from the subclass's {@code conclude()}).
 *
 * @param <T> the concrete context, so setters chain.
 */
public abstract class TransportContext<T extends TransportContext<T>>
{
    /** Default request stream id. */
    public static final int DEFAULT_REQUEST_STREAM_ID = 7001;

    private final ConcludeOnce concluded = new ConcludeOnce();
    private Aeron aeron;
    private String requestChannel;
    private int requestStreamId = DEFAULT_REQUEST_STREAM_ID;
    private IdleStrategy idleStrategy = AgentIdle.standard();
    private int fragmentLimit;
    private String name;

    /**
     * Creates a context with the subclass's defaults.
     *
     * @param fragmentLimit fragments read per duty cycle by default.
     * @param name          the agent's name by default.
     */
    protected TransportContext(final int fragmentLimit, final String name)
    {
        this.fragmentLimit = fragmentLimit;
        this.name = name;
    }

    /**
     * This context as its concrete type.
     *
     * @return this.
     */
    protected abstract T self();

    /**
     * Sets the connected client to use (not owned).
     *
     * @param aeron the connected client to use (not owned).
     * @return this.
     */
    public T aeron(final Aeron aeron)
    {
        this.aeron = aeron;
        return self();
    }

    /**
     * Returns the Aeron client.
     *
     * @return the Aeron client.
     */
    public Aeron aeron()
    {
        return aeron;
    }

    /**
     * Sets the server's request channel, where requests arrive: {@code aeron:ipc} or
     * {@code aeron:udp?endpoint=host:port}.
     *
     * @param channel the request channel.
     * @return this.
     */
    public T requestChannel(final String channel)
    {
        this.requestChannel = channel;
        return self();
    }

    /**
     * Returns the request channel.
     *
     * @return the request channel.
     */
    public String requestChannel()
    {
        return requestChannel;
    }

    /**
     * Sets the server's request stream id (default {@value #DEFAULT_REQUEST_STREAM_ID}).
     *
     * @param streamId the request stream id.
     * @return this.
     */
    public T requestStreamId(final int streamId)
    {
        this.requestStreamId = streamId;
        return self();
    }

    /**
     * Returns the request stream id.
     *
     * @return the request stream id.
     */
    public int requestStreamId()
    {
        return requestStreamId;
    }

    /**
     * Sets how the duty cycle idles when there is nothing to do (default {@link AgentIdle#standard()}).
     *
     * @param idleStrategy how the duty cycle idles.
     * @return this.
     */
    public T idleStrategy(final IdleStrategy idleStrategy)
    {
        this.idleStrategy = idleStrategy;
        return self();
    }

    /**
     * Returns how the duty cycle idles.
     *
     * @return the idle strategy.
     */
    public IdleStrategy idleStrategy()
    {
        return idleStrategy;
    }

    /**
     * Sets the fragments read from the agent's subscription per duty cycle (requests for a server, responses for a
     * client).
     *
     * @param limit fragments per duty cycle.
     * @return this.
     */
    public T fragmentLimit(final int limit)
    {
        this.fragmentLimit = limit;
        return self();
    }

    /**
     * Returns the fragments read per duty cycle.
     *
     * @return fragments read per duty cycle.
     */
    public int fragmentLimit()
    {
        return fragmentLimit;
    }

    /**
     * Sets the agent's name, used in its role name and counter labels.
     *
     * @param agentName the name.
     * @return this.
     */
    protected T name(final String agentName)
    {
        this.name = agentName;
        return self();
    }

    /**
     * Returns the agent's name.
     *
     * @return the name.
     */
    protected String name()
    {
        return name;
    }

    /**
     * Concludes what is common, once: the Aeron client, the request channel and the idle strategy must be set.
     *
     * @throws IllegalArgumentException naming the first setting that is wrong.
     * @throws dev.offcache.core.config.ConcurrentConcludeException when concluded before.
     */
    protected void concludeCommon()
    {
        concluded.conclude(this);
        if (aeron == null)
        {
            throw new IllegalArgumentException("aeron must be set");
        }
        if (requestChannel == null || requestChannel.isBlank())
        {
            throw new IllegalArgumentException("requestChannel must be set");
        }
        if (idleStrategy == null)
        {
            throw new IllegalArgumentException("idleStrategy must not be null");
        }
    }
}
