package dev.mcprelay.bridge;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.jsonrpc.McpMeta;
import dev.mcprelay.jsonrpc.ProtocolVersions;
import dev.mcprelay.transport.UpstreamRequest;

/**
 * A 2025 client's request as MCP 2026-07-28 requires it of a client (the other half of a bridged session): the
 * version, client info and capabilities the client declared in its {@code initialize} go in the request's
 * {@code _meta} (keys of the client's own there are kept, and the envelope's replace any of the same name),
 * {@code MCP-Protocol-Version} names 2026-07-28, {@code Mcp-Method} the method and {@code Mcp-Name} the tool, prompt or
 * resource it names (as {@code =?base64?…?=} when it is not plain printable ASCII; at most
 * {@value #MAX_NAME_HEADER_BYTES} bytes so written, {@link #nameTooLong}); the relay's session id and
 * {@code Last-Event-ID} stay with the client. Every other header is the one the relay built for the server.
 *
 * @see <a href="https://modelcontextprotocol.io/specification/2026-07-28/basic/transports">MCP 2026-07-28
 * transports</a>
 */
final class ModernRequests {

	/**
	 * The longest {@code Mcp-Name} the relay sends, as written ({@code =?base64?…?=} included): the one bound of the
	 * header values the relay writes ({@link dev.mcprelay.transport.WrittenHeaderBound}). 2026-07-28 requires the
	 * header on {@code tools/call}, {@code prompts/get} and {@code resources/read}; tool names are far shorter (MCP asks
	 * for at most 128 characters); a resource URI may be longer, but rarely near this.
	 */
	static final int MAX_NAME_HEADER_BYTES = dev.mcprelay.transport.WrittenHeaderBound.MAX_BYTES;

	/** Headers of the client's session with the relay, not of its request to the server. */
	private static final List<String> SESSION_HEADERS = List.of("Mcp-Session-Id", "Last-Event-ID",
			"MCP-Protocol-Version", "Mcp-Method", "Mcp-Name", HttpHeaders.CONTENT_LENGTH);

	private ModernRequests() {
	}

	/**
	 * {@code request} (the relay's request for the server, whose body held {@code message}) as a 2026-07-28 request of
	 * the client; {@code message} is changed in place.
	 */
	static UpstreamRequest of(UpstreamRequest request, ObjectNode message, BridgedClient client, Runnable onWritten) {
		ObjectNode params = message.get("params") instanceof ObjectNode given ? given : message.putObject("params");
		ObjectNode meta = params.get("_meta") instanceof ObjectNode given ? given : params.putObject("_meta");
		meta.put(McpMeta.PROTOCOL_VERSION, ProtocolVersions.PER_REQUEST);
		meta.set(McpMeta.CLIENT_INFO, client.clientInfo().isObject() ? client.clientInfo()
				: meta.objectNode().put("name", "unknown").put("version", "0"));
		meta.set(McpMeta.CLIENT_CAPABILITIES, client.capabilities().isObject() ? client.capabilities() : meta.objectNode());
		String method = message.path("method").asText();
		HttpHeaders headers = headersFor(request.headers(), method, nameOf(method, params));
		return new UpstreamRequest(request.serverId(), HttpMethod.POST, request.uri(), headers,
				message.toString().getBytes(StandardCharsets.UTF_8), request.callerId(), onWritten);
	}

	/** The headers of a 2026-07-28 POST of {@code method} naming {@code name} ({@code null}: none), from the relay's. */
	static HttpHeaders headersFor(HttpHeaders relayed, String method, String name) {
		HttpHeaders headers = new HttpHeaders();
		headers.addAll(relayed);
		SESSION_HEADERS.forEach(headers::remove);
		headers.set("MCP-Protocol-Version", ProtocolVersions.PER_REQUEST);
		headers.set("Mcp-Method", headerValue(method));
		if (name != null) {
			headers.set("Mcp-Name", headerValue(name));
		}
		headers.set(HttpHeaders.ACCEPT, "application/json, text/event-stream");
		headers.set(HttpHeaders.CONTENT_TYPE, "application/json");
		return headers;
	}

	/**
	 * Whether the {@code Mcp-Name} that {@code message} needs would be longer than {@value #MAX_NAME_HEADER_BYTES}
	 * bytes: such a request is not sent ({@link SessionBridge} answers it with an error), since a server would refuse it
	 * with an HTTP error of its own, no JSON-RPC answer.
	 */
	static boolean nameTooLong(ObjectNode message) {
		if (!(message.get("params") instanceof ObjectNode params)) {
			return false;
		}
		String name = nameOf(message.path("method").asText(), params);
		// checked on the raw length first: a name of 70,000 characters is not encoded to be measured
		return name != null && (name.length() > MAX_NAME_HEADER_BYTES
				|| headerValue(name).length() > MAX_NAME_HEADER_BYTES);
	}

	/** What {@code Mcp-Name} carries for {@code method}: the tool's or prompt's name, the resource's URI; else null. */
	private static String nameOf(String method, ObjectNode params) {
		JsonNode name = switch (method) {
			case "tools/call", "prompts/get" -> params.get("name");
			case "resources/read" -> params.get("uri");
			default -> null;
		};
		return name != null && name.isTextual() ? name.asText() : null;
	}

	/** {@code value} as a header value: as it is when plain printable ASCII, else {@code =?base64?…?=} of its UTF-8. */
	static String headerValue(String value) {
		boolean plain = !value.isEmpty() && value.chars().allMatch(c -> c >= 0x20 && c < 0x7f)
				&& !value.startsWith("=?") && value.strip().equals(value);
		return plain ? value
				: "=?base64?" + Base64.getEncoder().encodeToString(value.getBytes(StandardCharsets.UTF_8)) + "?=";
	}

}
