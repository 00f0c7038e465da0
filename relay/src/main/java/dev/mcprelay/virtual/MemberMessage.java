package dev.mcprelay.virtual;

import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.api.jsonrpc.JsonRpcErrors;
import dev.mcprelay.api.jsonrpc.JsonRpcMessage;
import dev.mcprelay.http.RelayExchange;
import dev.mcprelay.jsonrpc.JsonRpcPayload;

/**
 * One JSON-RPC message a virtual server sends a member (POST): its bytes, what its 2026-07-28 {@code Mcp-Method} and
 * {@code Mcp-Name} headers mirror ({@link MemberCalls}), and, for a client's request the virtual server parsed and
 * routed ({@link #routed}), its tree, which the member's relay starts from instead of parsing the bytes again
 * ({@link RelayExchange#parsedBody()}).
 *
 * <p>The tree goes to one member exchange only, the first made of the message ({@link #takeParsed()}): that
 * exchange's interceptors change it in place, so a message sent again (the member had lost its session,
 * {@link MemberRequests}) is parsed from its bytes by the member's relay, as every message the virtual server makes
 * itself ({@link #of}) is. What the headers mirror is read once, from the message as the virtual server made it,
 * before any exchange had the tree. Used on one reactive chain at a time.
 */
final class MemberMessage {

	private final byte[] bytes;

	private final AtomicReference<JsonRpcPayload> parsed;

	/** Whether {@link #method} and {@link #name} were read. */
	private boolean mirrored;

	private String method;

	private String name;

	private MemberMessage(byte[] bytes, JsonRpcPayload parsed) {
		this.bytes = bytes;
		this.parsed = parsed == null ? null : new AtomicReference<>(parsed);
		if (parsed != null) {
			read(parsed.messages().get(0).node());
		}
	}

	/** A message the virtual server wrote itself (or a client's it changed and keeps): sent as bytes. */
	static MemberMessage of(byte[] bytes) {
		return new MemberMessage(bytes, null);
	}

	/**
	 * The client's request, the one message of {@code received} (parsed and validated as a client's body is,
	 * {@code JsonRpcParser#parseClientBody}), as the member it is routed to gets it: {@code message}, its tree or a copy
	 * with the name the member published. Its bytes are the client's own when it is the same tree (what the member's
	 * relay would forward of it, were the member addressed directly), else the copy's; the tree is handed on, so that
	 * the member's relay parses neither again.
	 */
	static MemberMessage routed(JsonRpcPayload received, ObjectNode message) {
		JsonRpcMessage request = received.first();
		if (message == request.node()) {
			return new MemberMessage(received.raw(), received);
		}
		byte[] bytes = JsonRpcErrors.toBytes(message);
		return new MemberMessage(bytes, new JsonRpcPayload(bytes, List.of(new JsonRpcMessage(request.kind(), message)),
				false));
	}

	byte[] bytes() {
		return bytes;
	}

	/** The message parsed, for the first member exchange made of it; {@code null} for every later one, and for bytes. */
	JsonRpcPayload takeParsed() {
		return parsed == null ? null : parsed.getAndSet(null);
	}

	/** The message's method, for {@code Mcp-Method}; {@code null} when it has none (an answer, no JSON object). */
	String method() {
		mirror();
		return method;
	}

	/** What {@code Mcp-Name} mirrors: {@code params.name}, else {@code params.uri}, when a string; else {@code null}. */
	String name() {
		mirror();
		return name;
	}

	private void mirror() {
		if (!mirrored) {
			ObjectNode message = MemberMessages.parse(bytes);
			if (message != null) {
				read(message);
			}
			mirrored = true;
		}
	}

	private void read(ObjectNode message) {
		mirrored = true;
		JsonNode method = message.get("method");
		if (method == null || !method.isTextual()) {
			return;
		}
		this.method = method.textValue();
		JsonNode params = message.path("params");
		JsonNode name = params.path("name").isTextual() ? params.get("name") : params.path("uri");
		this.name = name.isTextual() ? name.textValue() : null;
	}

}
