package dev.mcprelay.api;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * A successful response from the upstream, matched by id to the client's request, which is at hand. This is the
 * view for methods without a typed response view (see {@link ResponseInterceptor}); the typed views extend it.
 *
 * <p>Any response's result may be replaced as a whole ({@link #replaceResult}); typed views add finer setters.
 */
public class McpResponse extends MessageView {

	private final McpRequest request;

	public McpResponse(CallContext context, ObjectNode message, McpRequest request) {
		super(context, message);
		this.request = request;
	}

	/**
	 * The request this answers, as it was sent upstream (after any change a request interceptor made). For an answer
	 * on a GET stream whose request is not known, one the relay infers: the answer's id and the method its shape tells
	 * (or none), no params.
	 */
	public McpRequest request() {
		return request;
	}

	/**
	 * The method of the request this answers; {@code null} for an answer on a GET stream whose request is not known
	 * (see {@link ResponseInterceptor}).
	 */
	@Override
	public String method() {
		return request.method();
	}

	/** A copy of the result. */
	public ObjectNode result() {
		return objectFieldCopy("result");
	}

	/**
	 * Replaces the whole result.
	 *
	 * @param result a {@code JsonNode}, a {@code Map} or an MCP schema record such as {@code McpSchema.CallToolResult}
	 */
	public void replaceResult(Object result) {
		message().set("result", toJson(result));
		markChanged();
	}

	/** The live result object; setters of subclasses write through it. */
	ObjectNode liveResult() {
		return objectField("result");
	}

}
