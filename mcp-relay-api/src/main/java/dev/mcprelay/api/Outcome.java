package dev.mcprelay.api;

import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.api.jsonrpc.JsonRpcJson;
import reactor.core.publisher.Mono;

/**
 * What an interceptor decided about a message. An empty {@code Mono} means {@link #proceed()}; an error means a
 * rejection (a {@link RejectError} is sent as is, any other exception as a generic -32603).
 *
 * <ul>
 * <li>{@link #proceed()}: let the message go on to the next interceptor, and then on its way. A change made through
 * the view's setters goes with it.</li>
 * <li>{@link #reject(RejectError)}: stop here; the client gets the error in place of the message.</li>
 * <li>{@link #respond(Object)} (request stages only): answer the client with this result; nothing goes upstream.</li>
 * <li>{@link #replaceError(Object)} (error stage only): the client gets this result in place of the upstream's
 * error or failure.</li>
 * <li>{@link #drop()} (server-notification stage only): the client never sees the notification.</li>
 * </ul>
 * A stage that does not allow an outcome treats it as a failure of the interceptor (logged, -32603).
 */
public final class Outcome {

	/** The kinds of outcome, as reported in logs and metrics. */
	public enum Kind {
		PROCEED, RESPOND, REPLACE_ERROR, DROP
	}

	private static final Outcome PROCEED = new Outcome(Kind.PROCEED, null);

	private static final Mono<Outcome> PROCEED_MONO = Mono.just(PROCEED);

	private static final Mono<Outcome> DROP_MONO = Mono.just(new Outcome(Kind.DROP, null));

	private final Kind kind;

	private final JsonNode result;

	private final List<ObjectNode> notifications;

	private Outcome(Kind kind, JsonNode result) {
		this(kind, result, List.of());
	}

	private Outcome(Kind kind, JsonNode result, List<ObjectNode> notifications) {
		this.kind = kind;
		this.result = result;
		this.notifications = notifications;
	}

	/** Go on, with whatever the setters changed. */
	public static Mono<Outcome> proceed() {
		return PROCEED_MONO;
	}

	/** Stop here and send {@code error} to the client. */
	public static Mono<Outcome> reject(RejectError error) {
		return Mono.error(error);
	}

	/**
	 * Answer the request with {@code result} without contacting the upstream.
	 *
	 * @param result the JSON-RPC {@code result}: a {@code JsonNode}, a {@code Map}, or an MCP schema record such as
	 * {@code McpSchema.CallToolResult}
	 */
	public static Mono<Outcome> respond(Object result) {
		return Mono.just(new Outcome(Kind.RESPOND, toResult(result)));
	}

	/**
	 * Answer the request with {@code notifications} first and then {@code result}, without contacting the upstream:
	 * as SSE events, in that order, when the client accepts {@code text/event-stream} and the relay answers its whole
	 * POST itself; otherwise the result alone, as JSON.
	 *
	 * @param notifications each a JSON-RPC notification: {@link #notification(String, Object)} makes one
	 * @param result the JSON-RPC {@code result}, in any of the forms {@link #respond(Object)} takes
	 */
	public static Mono<Outcome> respond(List<ObjectNode> notifications, Object result) {
		for (ObjectNode notification : notifications) {
			if (!notification.path("method").isTextual() || notification.has("id")) {
				throw new IllegalArgumentException("A notification has a method and no id: " + notification);
			}
		}
		return Mono.just(new Outcome(Kind.RESPOND, toResult(result), List.copyOf(notifications)));
	}

	/** A JSON-RPC notification of {@code method}, with {@code params} (any JSON-convertible value, or null). */
	public static ObjectNode notification(String method, Object params) {
		ObjectNode notification = JsonRpcJson.mapper().createObjectNode().put("jsonrpc", "2.0").put("method", method);
		if (params != null) {
			notification.set("params", toResult(params));
		}
		return notification;
	}

	/**
	 * Send {@code result} to the client in place of the upstream's error or failure.
	 *
	 * @param result the JSON-RPC {@code result}, in any of the forms {@link #respond(Object)} takes
	 */
	public static Mono<Outcome> replaceError(Object result) {
		return Mono.just(new Outcome(Kind.REPLACE_ERROR, toResult(result)));
	}

	/**
	 * Let the message go no further, silently: the client never sees it. Only the server-notification stage allows
	 * it (a notification needs no answer).
	 */
	public static Mono<Outcome> drop() {
		return DROP_MONO;
	}

	public Kind kind() {
		return kind;
	}

	/** The notifications to send before a {@link Kind#RESPOND}'s result; empty for every other outcome. */
	public List<ObjectNode> notifications() {
		return notifications;
	}

	/** The result to send, for {@link Kind#RESPOND} and {@link Kind#REPLACE_ERROR}; {@code null} otherwise. */
	public JsonNode result() {
		return result;
	}

	private static JsonNode toResult(Object result) {
		JsonNode node = JsonRpcJson.toTree(result);
		if (!node.isObject()) {
			throw new IllegalArgumentException("An MCP result is a JSON object, not " + (node.isNull() ? "null"
					: node.getNodeType()));
		}
		return node;
	}

	@Override
	public String toString() {
		return kind.name().toLowerCase();
	}

}
