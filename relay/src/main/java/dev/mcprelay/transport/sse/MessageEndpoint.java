package dev.mcprelay.transport.sse;

import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.jsonrpc.JsonRpcParser;
import dev.mcprelay.sse.SseEvent;

/**
 * Where a legacy HTTP+SSE server takes a session's messages, read from what it sent first. The 2024-11-05 transport
 * names it in an {@code endpoint} event whose data is a URL relative to the stream's (or absolute); servers and hubs
 * met in the wild also send a JSON {@code {"endpoint": …}} or {@code {"sessionId": …}} payload, or only an
 * {@code Mcp-Session-Id} / {@code X-Session-Id} response header, for which the endpoint is {@code messages?sessionId=…}
 * next to the stream's URL. An endpoint must have the stream's origin (scheme, host and port): a server cannot send
 * the relay's configured credentials anywhere else.
 *
 * @see <a href="https://modelcontextprotocol.io/specification/2024-11-05/basic/transports#http-with-sse">MCP
 * 2024-11-05, HTTP with SSE</a>
 */
final class MessageEndpoint {

	private MessageEndpoint() {
	}

	/**
	 * The endpoint an event names, or {@code null} when the event names none (a comment, a message).
	 *
	 * @throws IllegalArgumentException when it names one that is no URL or is on another origin
	 */
	static URI fromEvent(URI streamUri, SseEvent event) {
		String data = event.data() == null ? "" : event.data().strip();
		if (data.isEmpty()) {
			return null;
		}
		if (data.startsWith("{")) {
			JsonNode json;
			try {
				json = JsonRpcParser.mapper().readTree(data);
			}
			catch (Exception ex) {
				return null;
			}
			if (json.path("endpoint").isTextual()) {
				return resolve(streamUri, json.get("endpoint").asText());
			}
			if (json.path("sessionId").isTextual()) {
				return fromSessionId(streamUri, json.get("sessionId").asText());
			}
			return null;
		}
		return "endpoint".equals(event.event()) ? resolve(streamUri, data) : null;
	}

	/** The conventional endpoint for a session id a server gave in a header or payload. */
	static URI fromSessionId(URI streamUri, String sessionId) {
		return streamUri.resolve("messages?sessionId=" + URLEncoder.encode(sessionId, StandardCharsets.UTF_8));
	}

	private static URI resolve(URI streamUri, String endpoint) {
		URI resolved;
		try {
			resolved = streamUri.resolve(endpoint);
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException("its endpoint is no URL", ex);
		}
		if (!sameOrigin(streamUri, resolved)) {
			throw new IllegalArgumentException("its endpoint is on another origin than its event stream");
		}
		return resolved;
	}

	private static boolean sameOrigin(URI a, URI b) {
		return a.getScheme().equalsIgnoreCase(String.valueOf(b.getScheme()))
				&& a.getHost().equalsIgnoreCase(String.valueOf(b.getHost())) && port(a) == port(b);
	}

	private static int port(URI uri) {
		return uri.getPort() >= 0 ? uri.getPort() : "https".equalsIgnoreCase(uri.getScheme()) ? 443 : 80;
	}

}
