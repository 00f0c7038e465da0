package dev.mcprelay.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.api.jsonrpc.JsonRpcErrors;

/**
 * A request of the client's that the upstream did not answer with a result, as the {@link ErrorInterceptor}s see
 * it: the upstream answered with a JSON-RPC error, or refused the request with an HTTP 4xx or 5xx (JSON-RPC or not:
 * {@link #httpStatus()}), or the relay could not get an answer (the upstream timed out, refused the connection, broke
 * the stream, or sent something that is not JSON-RPC). Read-only; the error stage
 * may replace the error with a result ({@link Outcome#replaceError}) or with another error ({@link RejectError}).
 */
public final class UpstreamError extends MessageView {

	private final McpRequest request;

	private final String failureReason;

	private final int httpStatus;

	public UpstreamError(CallContext context, ObjectNode errorResponse, McpRequest request, String failureReason) {
		this(context, errorResponse, request, failureReason, 0);
	}

	public UpstreamError(CallContext context, ObjectNode errorResponse, McpRequest request, String failureReason,
			int httpStatus) {
		super(context, errorResponse);
		this.request = request;
		this.failureReason = failureReason;
		this.httpStatus = httpStatus;
	}

	/**
	 * The request that failed, as it was sent upstream, as its typed view: a {@link ToolsCallRequest} for
	 * {@code tools/call}, a {@link PromptsGetRequest} for {@code prompts/get}, ...
	 */
	public McpRequest request() {
		return request;
	}

	/** The request as {@code type} (e.g. {@code ToolsCallRequest.class}), or {@code null} when it is another. */
	public <T extends McpRequest> T request(Class<T> type) {
		return type.isInstance(request) ? type.cast(request) : null;
	}

	/**
	 * The upstream's HTTP status when it refused the request with a 4xx or 5xx (whether or not its body held a
	 * JSON-RPC error), else 0.
	 */
	public int httpStatus() {
		return httpStatus;
	}

	/**
	 * The method of the request that failed; {@code null} for an error on a GET stream whose request is not known
	 * (see {@link ErrorInterceptor}).
	 */
	@Override
	public String method() {
		return request.method();
	}

	/** The JSON-RPC error code. */
	public int code() {
		return message().path("error").path("code").asInt();
	}

	/** The JSON-RPC error message. */
	public String errorMessage() {
		return message().path("error").path("message").asText();
	}

	/** A copy of the error's {@code data}, or {@code null} when it has none. */
	public JsonNode data() {
		JsonNode data = message().path("error").get("data");
		return data == null ? null : data.deepCopy();
	}

	/**
	 * Why the relay got no answer ({@code upstream_timeout}, {@code upstream_unreachable},
	 * {@code upstream_invalid_response}, {@code upstream_stream_idle}, ...: the {@code error.data.reason} values of
	 * docs/troubleshooting.md), or {@code null} when the upstream itself answered with this error.
	 */
	public String failureReason() {
		return failureReason;
	}

	/** Whether the relay got no answer from the upstream, rather than an error answer. */
	public boolean isUpstreamFailure() {
		return failureReason != null;
	}

}
