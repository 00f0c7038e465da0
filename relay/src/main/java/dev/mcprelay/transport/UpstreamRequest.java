package dev.mcprelay.transport;

import java.net.URI;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;

/**
 * One client request as a transport sends it upstream: the relay has already applied its header rules, the
 * interceptors' header changes and the configured credentials, and chosen the body.
 *
 * @param serverId the configured server's id, for logs
 * @param method POST (client messages), GET (the server-to-client stream) or DELETE (the end of a session)
 * @param uri the configured upstream endpoint
 * @param headers the headers to send, final; the transport adds nothing but what its own wire form needs
 * @param body a POST's JSON-RPC message or batch; {@code null} for GET and DELETE
 * @param callerId who the front door let in ({@code null}: nobody was asked); a transport that keeps sessions binds
 * each to its caller
 * @param onWritten run once the request is on the upstream connection (headers and body written), so that the
 * session's next request may follow; a transport that delivers differently runs it once it delivered the message
 */
public record UpstreamRequest(String serverId, HttpMethod method, URI uri, HttpHeaders headers, byte[] body,
		String callerId, Runnable onWritten) {

	private static final Runnable NOTHING = () -> {
	};

	public UpstreamRequest {
		onWritten = onWritten == null ? NOTHING : onWritten;
	}

	/** The session the client names ({@code Mcp-Session-Id}), or {@code null}. */
	public String sessionId() {
		return headers.getFirst("Mcp-Session-Id");
	}

}
