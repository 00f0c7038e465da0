package dev.mcprelay.intercept;

import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.api.CallContext;
import dev.mcprelay.api.ListRequest;
import dev.mcprelay.api.McpRequest;
import dev.mcprelay.api.jsonrpc.JsonRpcMessage;

/**
 * Recognises a list result that reaches the relay without its request at hand, so that policy on lists holds wherever
 * the result travels: on a GET stream (a server that answers there), on a stream resumed with {@code Last-Event-ID}
 * (the request went with an earlier connection), or with an id this exchange did not send. Such a result is known by
 * its shape: a {@code result} whose {@code tools}, {@code prompts} or {@code resources} member is an array is the
 * answer to {@code tools/list}, {@code prompts/list} or {@code resources/list}. It then meets that method's response
 * stage, with a request the relay infers (method and id only, no params), exactly like a matched answer.
 */
final class UnmatchedListResults {

	private static final Map<String, String> METHOD_BY_MEMBER = Map.of("tools", "tools/list", "prompts",
			"prompts/list", "resources", "resources/list");

	private UnmatchedListResults() {
	}

	/** The list request {@code response} answers, judged by its shape; {@code null} when it is no list result. */
	static McpRequest inferRequest(CallContext context, JsonRpcMessage response) {
		if (!response.isResponse() || response.isError() || !(response.node().get("result") instanceof ObjectNode result)) {
			return null;
		}
		for (Map.Entry<String, String> member : METHOD_BY_MEMBER.entrySet()) {
			JsonNode list = result.get(member.getKey());
			if (list != null && list.isArray()) {
				ObjectNode request = JsonNodeFactory.instance.objectNode().put("jsonrpc", "2.0");
				request.set("id", response.id());
				request.put("method", member.getValue());
				return new ListRequest(context, request);
			}
		}
		return null;
	}

}
