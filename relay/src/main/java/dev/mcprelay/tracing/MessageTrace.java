package dev.mcprelay.tracing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.api.CallContext;
import dev.mcprelay.api.jsonrpc.JsonRpcMessage;
import io.micrometer.tracing.Span;

/**
 * One message a client sent (a request or a notification) on its way through the relay, in the terms of the
 * OpenTelemetry semantic conventions for MCP: the relay's server span for it (when tracing is on), the client span of
 * its trip upstream once it is sent, and the two operation durations ({@link McpOperationMeters}), which are recorded
 * whether tracing is on or not. Told what happens to the message by {@link ExchangeTrace}; ends once, when the
 * exchange ends ({@link #end}), closing its upstream trip first if the upstream never answered. An answer and the
 * exchange's end may come on two threads at once (a client that leaves as the answer arrives): each span and each
 * duration is ended and recorded once.
 */
final class MessageTrace {

	/**
	 * What the conventions record of a message, read from it once. Every text is cut to
	 * {@value TelemetryText#MAX_LENGTH} characters ({@link TelemetryText}).
	 *
	 * @param method {@code mcp.method.name}
	 * @param requestId {@code jsonrpc.request.id}; {@code null} for a notification (or a {@code null} id)
	 * @param toolName {@code gen_ai.tool.name} of a {@code tools/call}
	 * @param promptName {@code gen_ai.prompt.name} of a {@code prompts/get}
	 * @param resourceUri {@code mcp.resource.uri} of a request about one resource
	 * @param protocolVersion {@code mcp.protocol.version}: the client's {@code MCP-Protocol-Version} header, or the
	 * version an {@code initialize} asks for
	 * @param server the configured server the message is for
	 * @param virtualServer the virtual server it came through, or {@code null}
	 */
	record Facts(String method, String requestId, String toolName, String promptName, String resourceUri,
			String protocolVersion, String server, String virtualServer) {

		/**
		 * The conventions' span name: {@code {mcp.method.name} {target}}, the target a tool's or prompt's name; cut to
		 * {@value TelemetryText#MAX_LENGTH} characters.
		 */
		String spanName() {
			String target = toolName != null ? toolName : promptName;
			return TelemetryText.cut(target == null ? method : method + " " + target);
		}

		boolean isToolCall() {
			return "tools/call".equals(method);
		}

		static Facts of(JsonRpcMessage message, CallContext context) {
			String method = message.method();
			JsonNode id = message.id();
			JsonNode params = message.node().get("params");
			String version = context.headers().getFirst("MCP-Protocol-Version");
			if (version == null && "initialize".equals(method)) {
				version = text(params, "protocolVersion");
			}
			return new Facts(TelemetryText.cut(method),
					id == null || id.isNull() ? null : TelemetryText.cut(idText(id)),
					"tools/call".equals(method) ? text(params, "name") : null,
					"prompts/get".equals(method) ? text(params, "name") : null,
					method != null && (method.startsWith("resources/") && !method.endsWith("/list"))
							? text(params, "uri") : null,
					TelemetryText.cut(version), context.server(), context.virtualServer());
		}

		/**
		 * A request's JSON-RPC id as text: a string's text, an integer's digits (its JSON, without setting up Jackson's
		 * serializer for it, as {@code toString()} does per message), anything else its JSON.
		 */
		private static String idText(JsonNode id) {
			return id.isTextual() || id.isNumber() ? id.asText() : id.toString();
		}

		/** A text field of {@code params}, cut to {@value TelemetryText#MAX_LENGTH} characters. */
		private static String text(JsonNode params, String field) {
			JsonNode value = params instanceof ObjectNode object ? object.get(field) : null;
			return value != null && value.isTextual() ? TelemetryText.cut(value.asText()) : null;
		}

	}

	/** The {@code error.type} of a request whose exchange ended before its answer came, for no reason the relay knew. */
	static final String NO_ANSWER = "no_answer";

	private final McpTelemetry telemetry;

	/** The client's message, until its trip upstream starts ({@link #letGoOfMessage}); then {@code null}. */
	private volatile JsonRpcMessage message;

	/** The message's JSON-RPC id as it went upstream, kept for its answer once the trace let go of the message. */
	private volatile JsonNode id;

	private final Facts facts;

	private final long arrivedNanos;

	private final Span serverSpan;

	private Span clientSpan;

	private long sentNanos;

	private boolean upstreamDone;

	private boolean answeredWithResult;

	private String errorType;

	private String errorMessage;

	private boolean ended;

	MessageTrace(McpTelemetry telemetry, JsonRpcMessage message, Facts facts, long arrivedNanos, Span serverSpan) {
		this.telemetry = telemetry;
		this.message = message;
		this.facts = facts;
		this.arrivedNanos = arrivedNanos;
		this.serverSpan = serverSpan;
	}

	/** Whether this traces {@code message}, the very object; never once the trace let go of its message. */
	boolean is(JsonRpcMessage message) {
		JsonRpcMessage own = this.message;
		return own != null && own == message;
	}

	/** Whether this traces the message whose tree is {@code node}, the very object; never once it let go of it. */
	boolean isOf(ObjectNode node) {
		JsonRpcMessage own = this.message;
		return own != null && own.node() == node;
	}

	/** The message's JSON-RPC id (its message's, read live while the trace has it); {@code null} for a notification. */
	JsonNode requestIdNode() {
		JsonRpcMessage own = this.message;
		return own != null ? own.id() : id;
	}

	/**
	 * The message's trip upstream started, and nothing tells it apart by its tree any more: the trace lets go of the
	 * client's message (its bytes and its tree), and keeps what it recorded of it ({@link Facts}) and its id. A trace
	 * may outlive its exchange (the watcher of a call held for its client's retry), but never holds its request.
	 */
	void letGoOfMessage() {
		JsonRpcMessage own = this.message;
		if (own != null) {
			id = own.id();
			message = null;
		}
	}

	Facts facts() {
		return facts;
	}

	/** The relay's server span for the message; {@code null} when tracing is off. */
	Span serverSpan() {
		return serverSpan;
	}

	/** The span of the message's trip upstream; {@code null} before it is sent, or when tracing is off. */
	Span clientSpan() {
		return clientSpan;
	}

	boolean isSent() {
		return sentNanos != 0;
	}

	/** The message goes upstream now; {@code clientSpan} is its span, or {@code null}. */
	synchronized void sent(Span clientSpan) {
		if (ended) {
			// the exchange ended first (its client left): the trip never starts
			if (clientSpan != null) {
				clientSpan.abandon();
			}
			return;
		}
		this.sentNanos = System.nanoTime();
		this.clientSpan = clientSpan;
	}

	/** An interceptor refused the message with {@code code}; the client gets that error. */
	synchronized void rejected(int code, String message) {
		this.errorType = String.valueOf(code);
		this.errorMessage = TelemetryText.cut(message);
	}

	/**
	 * An interceptor answered the request with a result (nothing goes upstream), or put a result in place of the
	 * upstream's error: the client gets a result.
	 */
	synchronized void respondedLocally() {
		this.answeredWithResult = true;
		this.errorType = null;
		this.errorMessage = null;
	}

	/** The upstream's answer to the request arrived: its trip upstream ends. */
	synchronized void answered(JsonRpcMessage answer) {
		if (upstreamDone || ended) {
			return;
		}
		if (answer.isError()) {
			JsonNode error = answer.node().get("error");
			JsonNode code = error == null ? null : error.get("code");
			JsonNode text = error == null ? null : error.get("message");
			errorType = code != null && code.isIntegralNumber() ? code.asText() : McpAttributes.OTHER;
			errorMessage = text != null && text.isTextual() ? TelemetryText.cut(text.asText()) : null;
		}
		else {
			answeredWithResult = true;
			// Read only where the span is kept: the answer's tree is otherwise never built on this path.
			if (facts.isToolCall() && clientSpan != null && !clientSpan.isNoop()
					&& Boolean.TRUE.equals(clientSpan.context().sampled())
					&& answer.node().path("result").path("isError").asBoolean(false)) {
				errorType = McpAttributes.TOOL_ERROR;
			}
		}
		endUpstream(System.nanoTime());
	}

	/**
	 * The exchange ended: the message's trip upstream ends too if it was still under way, and the message's own
	 * operation ends.
	 *
	 * @param failure the relay's failure reason for the exchange, or {@code null}
	 */
	synchronized void end(String failure) {
		if (ended) {
			return;
		}
		ended = true;
		long now = System.nanoTime();
		if (errorType == null && !answeredWithResult) {
			// a request the relay sent that never got its answer failed, with the exchange's reason when it has one
			errorType = failure != null ? failure : isSent() && !upstreamDone && facts.requestId() != null ? NO_ANSWER : null;
		}
		if (isSent() && !upstreamDone) {
			endUpstream(now);
		}
		telemetry.meters().recordServer(facts, errorType, now - arrivedNanos);
		if (serverSpan != null) {
			close(serverSpan);
		}
	}

	private void endUpstream(long now) {
		upstreamDone = true;
		telemetry.meters().recordClient(facts, errorType, now - sentNanos);
		if (clientSpan != null) {
			close(clientSpan);
		}
	}

	/** Whether an {@code error.type} is a JSON-RPC error code (a number), not a word of the relay's. */
	static boolean isErrorCode(String errorType) {
		return !errorType.isEmpty() && (errorType.charAt(0) == '-' || Character.isDigit(errorType.charAt(0)));
	}

	/** Ends {@code span} with the message's fate: {@code error.type} and an error status when it failed. */
	private void close(Span span) {
		if (errorType != null) {
			span.tag(McpAttributes.ERROR_TYPE, errorType);
			if (isErrorCode(errorType)) {
				span.tag(McpAttributes.RESPONSE_STATUS_CODE, errorType);
			}
			span.error(new OperationFailed(errorMessage != null ? errorMessage : errorType));
		}
		span.end();
	}

	/** The status description of a failed operation: the JSON-RPC error's message, with no stack. */
	private static final class OperationFailed extends RuntimeException {

		OperationFailed(String message) {
			super(message, null, false, false);
		}

	}

}
