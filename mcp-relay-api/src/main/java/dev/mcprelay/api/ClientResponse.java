package dev.mcprelay.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.api.jsonrpc.JsonRpcErrors;

/**
 * The client's answer to a request of the server ({@code sampling/createMessage}, {@code elicitation/create},
 * {@code roots/list}, ...), as the {@link ClientResponseInterceptor}s see it, with the server's request at hand:
 * {@link #serverRequestMethod()} and {@link #serverRequestParams()}, so that a policy can check what the user
 * approved against what was asked. The method travels in the id the relay gave the request, bound to the server, the
 * session and the caller it was relayed to, so any replica has it; the params stay on the replica that relayed the
 * request (for {@code sessions.idle-timeout}, within a bounded memory), so they are {@code null} on another. Both are
 * {@code null} when the answer carries no id the relay gave, or one it cannot trust (altered, expired, minted for
 * another session, caller or server, or by a replica with another {@code sessions.secret}).
 */
public final class ClientResponse extends MessageView {

	private final String serverRequestMethod;

	private final ObjectNode serverRequestParams;

	/**
	 * @param serverRequestMethod the method of the server request this answers, {@code null} when not at hand
	 * @param serverRequestParams its params, {@code null} when it had none or is not at hand
	 */
	public ClientResponse(CallContext context, ObjectNode message, String serverRequestMethod,
			ObjectNode serverRequestParams) {
		super(context, message);
		this.serverRequestMethod = serverRequestMethod;
		this.serverRequestParams = serverRequestMethod == null ? null : serverRequestParams;
	}

	/** The method of the server request this answers, or {@code null} when it is not at hand. */
	@Override
	public String method() {
		return serverRequestMethod;
	}

	/** Same as {@link #method()}. */
	public String serverRequestMethod() {
		return method();
	}

	/** A copy of the params of the server request this answers, or {@code null} when it is not at hand. */
	public ObjectNode serverRequestParams() {
		return serverRequestParams == null ? null : serverRequestParams.deepCopy();
	}

	/** Whether the client answered with an error (declined, failed) rather than a result. */
	public boolean isError() {
		return message().has("error");
	}

	/** A copy of the result, or {@code null} for an error answer. */
	public ObjectNode result() {
		JsonNode result = message().get("result");
		return result instanceof ObjectNode object ? object.deepCopy() : null;
	}

	/** Replaces the result the server gets (a {@code JsonNode}, a {@code Map} or an MCP schema record). */
	public void replaceResult(Object result) {
		message().remove("error");
		message().set("result", toJson(result));
		markChanged();
	}

	/**
	 * Turns the answer into this error for the server, in place of what the client said; the relay does this when a
	 * client-response interceptor rejects the answer.
	 */
	public void replaceWithError(RejectError error) {
		ObjectNode replacement = JsonRpcErrors.error(message().get("id"), error.code(), error.getMessage(),
				error.data());
		message().remove("result");
		message().set("error", replacement.get("error"));
		markChanged();
	}

}
