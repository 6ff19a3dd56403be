package dev.offcache.transport.server;

import dev.offcache.transport.source.PayloadHandle;

/**
 * One request the server is answering: either a payload being streamed chunk by chunk from a held
 * {@link PayloadHandle}, or an error frame waiting to be sent. Pooled and reused by the server agent.
 */
final class ServedRequest
{
    ClientSession session;
    long correlationId;
    PayloadHandle handle;
    long start;
    long total;
    long sent;
    int chunkIndex;
    long deadlineNs;
    int errorCode;
    String errorMessage;

    boolean isError()
    {
        return errorCode != 0;
    }

    void reset()
    {
        session = null;
        handle = null;
        errorMessage = null;
        errorCode = 0;
        correlationId = 0;
        start = 0;
        total = 0;
        sent = 0;
        chunkIndex = 0;
        deadlineNs = 0;
    }
}
