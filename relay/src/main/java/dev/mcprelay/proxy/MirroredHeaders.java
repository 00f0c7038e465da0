package dev.mcprelay.proxy;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;

import org.springframework.http.HttpHeaders;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.api.jsonrpc.JsonRpcMessage;
import dev.mcprelay.jsonrpc.JsonRpcPayload;

/**
 * The request headers that mirror fields of the body (MCP 2026-07-28, SEP-2243): {@code Mcp-Method} carries the
 * JSON-RPC {@code method}, {@code Mcp-Name} the {@code params.name} (tools/call, prompts/get) or {@code params.uri}
 * (resources/read and the like), plain or as {@code =?base64?<UTF-8 in Base64>?=}.
 *
 * <p>
 * Load balancers, gateways and WAFs behind the relay may route or police by these headers while the relay's
 * interceptors police by the body, so a header that says something else than the body would let a request past one
 * of them under a false name. The relay refuses such a request before any interceptor or upstream sees it, whatever
 * the protocol version: a client that sends these headers must send the body's values, on every line it sends (lines
 * that agree go upstream as one, {@link SingleValuedHeaders}). It does not require them: an upstream that speaks
 * 2026-07-28 rejects a request that lacks them itself. The relay never changes a method, tool name or URI, so headers
 * that match what the client sent match what goes upstream. A virtual server's endpoint checks them the same way.
 */
public final class MirroredHeaders {

	static final String MCP_METHOD = "Mcp-Method";

	static final String MCP_NAME = "Mcp-Name";

	private static final String BASE64_PREFIX = "=?base64?";

	private static final String BASE64_SUFFIX = "?=";

	private MirroredHeaders() {
	}

	/**
	 * Checks the mirrored headers against every message of the payload (a header describes the whole POST, so in a
	 * batch every message must agree with it), line by line: a header the client repeats must agree with the body on
	 * every line, since whoever reads it behind the relay may read any of them.
	 *
	 * @return the failure to answer with (400, -32020), or {@code null} when the headers are absent or agree
	 */
	public static RelayFailure mismatch(HttpHeaders headers, JsonRpcPayload payload, String server) {
		List<String> methods = headers.getOrDefault(MCP_METHOD, List.of());
		List<String> names = headers.getOrDefault(MCP_NAME, List.of());
		if (methods.isEmpty() && names.isEmpty()) {
			return null;
		}
		for (JsonRpcMessage message : payload.messages()) {
			for (String method : methods) {
				if (!method.equals(message.method())) {
					return RelayFailures.headerMismatch(server, MCP_METHOD, "method");
				}
			}
			for (String name : names) {
				if (!nameMatches(name, message)) {
					return RelayFailures.headerMismatch(server, MCP_NAME, "params.name or params.uri");
				}
			}
		}
		return null;
	}

	private static boolean nameMatches(String header, JsonRpcMessage message) {
		JsonNode params = message.node().path("params");
		JsonNode target = params.path("name").isTextual() ? params.get("name") : params.path("uri");
		String decoded = decode(header);
		return target.isTextual() && decoded != null && decoded.equals(target.textValue());
	}

	/**
	 * The header's value, Base64-decoded when it is in the sentinel form; {@code null} when that form is broken: a
	 * character outside the Base64 alphabet, or a length that is no multiple of four (padding left out), which the
	 * 2026-07-28 conformance suite has a server refuse ({@code =?base64?SGVsbG8?=}) while a lenient decoder reads it,
	 * or bytes that are no valid UTF-8.
	 */
	static String decode(String header) {
		if (!header.startsWith(BASE64_PREFIX) || !header.endsWith(BASE64_SUFFIX)
				|| header.length() < BASE64_PREFIX.length() + BASE64_SUFFIX.length()) {
			return header;
		}
		String encoded = header.substring(BASE64_PREFIX.length(), header.length() - BASE64_SUFFIX.length());
		if (encoded.length() % 4 != 0) {
			return null;
		}
		try {
			// bytes that are no UTF-8 are broken too, never read as U+FFFD (which a body could say: review 43j N-7)
			return StandardCharsets.UTF_8.newDecoder()
				.onMalformedInput(CodingErrorAction.REPORT)
				.onUnmappableCharacter(CodingErrorAction.REPORT)
				.decode(ByteBuffer.wrap(Base64.getDecoder().decode(encoded)))
				.toString();
		}
		catch (IllegalArgumentException | CharacterCodingException ex) {
			return null;
		}
	}

}
