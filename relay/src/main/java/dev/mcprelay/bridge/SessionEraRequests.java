package dev.mcprelay.bridge;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.jsonrpc.McpMeta;
import dev.mcprelay.transport.UpstreamRequest;

/**
 * A 2026-07-28 client's request as a 2025 server requires it (direction 2 of the bridge): in the upstream session the
 * relay keeps for the client ({@link UpstreamSessions}: {@code Mcp-Session-Id}, and the session's version as
 * {@code MCP-Protocol-Version}), the 2026 envelope taken out of {@code _meta} (the server heard the client's info and
 * capabilities once, in the session's {@code initialize}; every other key of {@code _meta}, a progress token among
 * them, is kept), and the headers only 2026-07-28 has ({@code Mcp-Method}, {@code Mcp-Name}, {@code Mcp-Param-*})
 * left out. Also the session's own {@code initialize} and {@code notifications/initialized}.
 */
final class SessionEraRequests {

	/** The {@code _meta} keys of the 2026-07-28 envelope, which a 2025 server has no use for. */
	private static final List<String> ENVELOPE = List.of(McpMeta.PROTOCOL_VERSION, McpMeta.CLIENT_INFO,
			McpMeta.CLIENT_CAPABILITIES, McpMeta.LOG_LEVEL);

	private SessionEraRequests() {
	}

	/** {@code message} (changed in place) as a request in {@code session}, with the relay's other headers. */
	static UpstreamRequest inSession(UpstreamRequest relayed, ObjectNode message, UpstreamSession session,
			Runnable onWritten) {
		if (message.get("params") instanceof ObjectNode params && params.get("_meta") instanceof ObjectNode meta) {
			meta.remove(ENVELOPE);
			if (meta.isEmpty()) {
				params.remove("_meta");
			}
		}
		HttpHeaders headers = headersFor(relayed.headers());
		if (session.sessionId() != null) {
			headers.set("Mcp-Session-Id", session.sessionId());
		}
		headers.set("MCP-Protocol-Version", session.version());
		return post(relayed, headers, message, onWritten);
	}

	/** The GET that opens {@code session}'s stream of server messages. */
	static UpstreamRequest stream(UpstreamRequest relayed, UpstreamSession session, Runnable onWritten) {
		HttpHeaders headers = headersFor(relayed.headers());
		headers.remove(HttpHeaders.CONTENT_TYPE);
		headers.set(HttpHeaders.ACCEPT, "text/event-stream");
		if (session.sessionId() != null) {
			headers.set("Mcp-Session-Id", session.sessionId());
		}
		headers.set("MCP-Protocol-Version", session.version());
		return new UpstreamRequest(relayed.serverId(), HttpMethod.GET, relayed.uri(), headers, null,
				relayed.callerId(), onWritten);
	}

	/** The DELETE that ends {@code session} at the server, with the relay's other headers. */
	static UpstreamRequest end(UpstreamRequest relayed, UpstreamSession session) {
		HttpHeaders headers = headersFor(relayed.headers());
		headers.remove(HttpHeaders.CONTENT_TYPE);
		headers.set("Mcp-Session-Id", session.sessionId());
		headers.set("MCP-Protocol-Version", session.version());
		return new UpstreamRequest(relayed.serverId(), HttpMethod.DELETE, relayed.uri(), headers, null,
				relayed.callerId(), null);
	}

	/** The {@code initialize} that opens a session for {@code client}, asking for {@code version}. */
	static UpstreamRequest initialize(UpstreamRequest relayed, ModernClient client, String version) {
		ObjectNode initialize = JsonNodeFactory.instance.objectNode().put("jsonrpc", "2.0")
			.put("id", "mcp-relay-initialize").put("method", "initialize");
		ObjectNode params = initialize.putObject("params").put("protocolVersion", version);
		params.set("capabilities", client.capabilities());
		params.set("clientInfo", client.clientInfo());
		return post(relayed, headersFor(relayed.headers()), initialize, null);
	}

	/** The {@code notifications/initialized} that completes the opening of {@code session}. */
	static UpstreamRequest initialized(UpstreamRequest relayed, UpstreamSession session) {
		ObjectNode initialized = JsonNodeFactory.instance.objectNode().put("jsonrpc", "2.0")
			.put("method", "notifications/initialized");
		return inSession(relayed, initialized, session, null);
	}

	private static UpstreamRequest post(UpstreamRequest relayed, HttpHeaders headers, ObjectNode message,
			Runnable onWritten) {
		return new UpstreamRequest(relayed.serverId(), HttpMethod.POST, relayed.uri(), headers,
				message.toString().getBytes(StandardCharsets.UTF_8), relayed.callerId(), onWritten);
	}

	/** The relay's headers for the server without those of 2026-07-28 and of the client's own session. */
	private static HttpHeaders headersFor(HttpHeaders relayed) {
		HttpHeaders headers = new HttpHeaders();
		headers.addAll(relayed);
		List<String> modern = new ArrayList<>();
		headers.headerNames().forEach(name -> {
			String lower = name.toLowerCase(java.util.Locale.ROOT);
			if (lower.equals("mcp-method") || lower.equals("mcp-name") || lower.startsWith("mcp-param-")
					|| lower.equals("mcp-session-id") || lower.equals("mcp-protocol-version")
					|| lower.equals("last-event-id") || lower.equals("content-length")) {
				modern.add(name);
			}
		});
		modern.forEach(headers::remove);
		headers.set(HttpHeaders.ACCEPT, "application/json, text/event-stream");
		headers.set(HttpHeaders.CONTENT_TYPE, "application/json");
		return headers;
	}

}
