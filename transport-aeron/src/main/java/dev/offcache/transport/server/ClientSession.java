package dev.offcache.transport.server;

import io.aeron.ExclusivePublication;

/**
 * The server's state for one connected client: identified by the session id of the client's request
 * publication, answered on an exclusive publication to the channel and stream the client named in its HELLO.
 */
final class ClientSession
{
    final int requestSessionId;
    final long clientId;
    final String responseChannel;
    final int responseStreamId;
    long publicationRegistrationId;
    ExclusivePublication publication;
    int maxChunkPayload;
    boolean wasConnected;
    int inFlight;
    long blockedInPass = -1;

    ClientSession(
        final int requestSessionId, final long clientId, final String responseChannel, final int responseStreamId)
    {
        this.requestSessionId = requestSessionId;
        this.clientId = clientId;
        this.responseChannel = responseChannel;
        this.responseStreamId = responseStreamId;
    }

    public String toString()
    {
        return "client " + clientId + " (session " + requestSessionId + ", responses on " + responseChannel +
            " stream " + responseStreamId + ")";
    }
}
