package dev.mcprelay.config;

import java.time.Duration;

import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * How long the relay waits on one upstream, mcp-relay.servers.<id>.timeouts.
 *
 * @param nonStreaming bound on connect plus response headers, and for a JSON response on reading its body too;
 * exceeded, the client gets a JSON-RPC error with HTTP 504
 * @param streamingIdle bound on silence in an SSE stream (and any other streamed body), reset by every byte,
 * keepalive comments included. On a POST stream the pending request is answered with a JSON-RPC error event; on a
 * GET stream it is the stream's normal end.
 */
public record TimeoutProperties(
		@DefaultValue("60s") Duration nonStreaming,
		@DefaultValue("60s") Duration streamingIdle) {
}
