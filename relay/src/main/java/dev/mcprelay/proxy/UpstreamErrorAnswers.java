package dev.mcprelay.proxy;

import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.api.McpRequest;
import dev.mcprelay.api.jsonrpc.JsonRpcErrors;
import dev.mcprelay.api.jsonrpc.JsonRpcMessage;
import dev.mcprelay.intercept.PendingRequests;
import dev.mcprelay.jsonrpc.JsonRpcParseException;
import dev.mcprelay.jsonrpc.JsonRpcParser;

/**
 * One answer for each forwarded request that an upstream refused with a 4xx or 5xx, built from what the upstream
 * said: its JSON-RPC response with the request's id when it sent one; its id-less JSON-RPC error, given the request's
 * id, when it sent that (a "session not found" answers every request alike); otherwise the relay's failure.
 */
final class UpstreamErrorAnswers {

	private UpstreamErrorAnswers() {
	}

	/**
	 * @param body the upstream's body, possibly empty or not JSON
	 * @param pending the forwarded requests; each is taken as answered
	 * @param otherwise the failure for a request the body does not answer
	 * @return one answer per forwarded request, in the order they were sent
	 */
	static List<ObjectNode> of(byte[] body, PendingRequests pending, RelayFailure otherwise) {
		List<JsonRpcMessage> said = parse(body);
		JsonRpcMessage idless = said.size() == 1 && said.get(0).isError() && said.get(0).id().isNull() ? said.get(0)
				: null;
		List<ObjectNode> answers = new ArrayList<>();
		for (McpRequest request : pending.remaining()) {
			pending.take(request.id());
			answers.add(answer(request.id(), said, idless, otherwise));
		}
		return answers;
	}

	private static ObjectNode answer(JsonNode id, List<JsonRpcMessage> said, JsonRpcMessage idless,
			RelayFailure otherwise) {
		for (JsonRpcMessage message : said) {
			if (message.isResponse() && id.equals(message.id())) {
				return message.node();
			}
		}
		if (idless != null) {
			ObjectNode answer = idless.node().deepCopy();
			answer.set("id", id);
			return answer;
		}
		return JsonRpcErrors.error(id, otherwise.code(), otherwise.getMessage(), otherwise.data());
	}

	private static List<JsonRpcMessage> parse(byte[] body) {
		try {
			return JsonRpcParser.parse(body).messages();
		}
		catch (JsonRpcParseException notJsonRpc) {
			return List.of();
		}
	}

}
