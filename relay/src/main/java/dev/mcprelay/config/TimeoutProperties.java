package dev.mcprelay.config;

import java.time.Duration;
import java.time.temporal.ChronoUnit;

import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.boot.convert.DurationUnit;

/**
 * How long the relay waits on one upstream, and on a client that stops reading a stream of it,
 * mcp-relay.servers.<id>.timeouts.
 *
 * @param nonStreaming bound on connect plus response headers, and for a JSON response on reading its body too;
 * exceeded, the client gets a JSON-RPC error with HTTP 504
 * @param streamingIdle bound on the upstream's silence in an SSE stream, reset by every byte, keepalive comments
 * included; it runs only while the relay is ready to read (a client that reads slowly never makes the upstream look
 * idle). On a POST stream the pending request is answered with a JSON-RPC error event; on a GET stream it is the
 * stream's normal end.
 * @param clientWrite bound on a client that stops reading a stream: once the relay holds as much of the stream as it
 * reads ahead and the client has taken none of it for this long, the client's connection is closed (reason
 * {@code client_write_timeout}); the upstream exchange is cancelled and is not blamed
 */
public record TimeoutProperties(
		@DurationUnit(ChronoUnit.SECONDS) @DefaultValue("60s") Duration nonStreaming,
		@DurationUnit(ChronoUnit.SECONDS) @DefaultValue("60s") Duration streamingIdle,
		@DurationUnit(ChronoUnit.SECONDS) @DefaultValue("30s") Duration clientWrite) {

	/**
	 * The bound on work the relay does on its own inside a client's request to this server before the request can be
	 * answered (opening a legacy HTTP+SSE server's stream for it; listing the server's tools or prompts so that a
	 * policy can decide it, its wait for a turn among the server's listings included): four fifths of
	 * {@code non-streaming}, the bound the request itself runs under (each interceptor of its chain, the upstream's
	 * answer), so that such work that hangs fails as itself, with its own clear error, before the request's bound
	 * answers the client with a generic one.
	 */
	public Duration ownWork() {
		return nonStreaming.multipliedBy(4).dividedBy(5);
	}

}
