package dev.mcprelay.proxy;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import org.springframework.core.io.buffer.DefaultDataBufferFactory;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.api.McpRequest;
import dev.mcprelay.api.jsonrpc.JsonRpcErrors;
import dev.mcprelay.api.jsonrpc.JsonRpcMessage;
import dev.mcprelay.intercept.PendingRequests;
import dev.mcprelay.jsonrpc.JsonRpcParseException;
import dev.mcprelay.jsonrpc.JsonRpcParser;
import dev.mcprelay.sse.SseEvent;
import dev.mcprelay.sse.SseEventSplitter;

/**
 * One answer for each forwarded request that an upstream refused with a non-2xx status, built from what the upstream
 * said: its JSON-RPC error with the request's id when it sent one; its id-less JSON-RPC error, given the request's id,
 * when it sent that (a "session not found" answers every request alike); otherwise the relay's failure (its
 * {@code upstream_error_status}, naming the status). A <em>result</em> under a non-2xx status is never taken as the
 * request's answer: the status says the request failed, and a result there would reach the client past its response
 * stage (a {@code tools/list} listing a denied tool, a tool's output unredacted); the request gets the relay's failure
 * instead, as a virtual server's member's non-2xx is never merged as a result.
 * <p>
 * The body is read as the upstream labelled it: JSON, or an event stream whose message events each hold one JSON-RPC
 * message.
 */
final class UpstreamErrorAnswers {

	private UpstreamErrorAnswers() {
	}

	/**
	 * The answers, and whether the body may still be relayed as it came.
	 *
	 * @param answers one per forwarded request, in the order they were sent
	 * @param onlyErrors whether every JSON-RPC message the body held (if any) is an error: a body holding a result, a
	 * request or a notification is never relayed as it came under a non-2xx status (none of them met its stage)
	 */
	record Answers(List<ObjectNode> answers, boolean onlyErrors) {
	}

	/**
	 * @param body the upstream's body, possibly empty or not JSON-RPC
	 * @param eventStream whether the upstream labelled it {@code text/event-stream}
	 * @param pending the forwarded requests; each is taken as answered
	 * @param otherwise the failure for a request the body does not answer with an error
	 */
	static Answers of(byte[] body, boolean eventStream, PendingRequests pending, RelayFailure otherwise) {
		Said read = eventStream ? parseEvents(body) : parse(body);
		List<JsonRpcMessage> said = read.messages();
		JsonRpcMessage idless = said.size() == 1 && said.get(0).isError() && said.get(0).id().isNull() ? said.get(0)
				: null;
		List<ObjectNode> answers = new ArrayList<>();
		for (McpRequest request : pending.remaining()) {
			pending.take(request.id());
			answers.add(answer(request.id(), said, idless, otherwise));
		}
		return new Answers(answers, read.onlyErrors());
	}

	/**
	 * What a body said: its JSON-RPC messages, and whether it holds nothing but errors. A body that is not all valid
	 * JSON-RPC (a batch with one invalid element, an invalid message beside a result) has no messages here, yet holds
	 * more than errors when any object in it has a {@code result} or a {@code method}: a lenient client may read that.
	 */
	private record Said(List<JsonRpcMessage> messages, boolean onlyErrors) {
	}

	private static ObjectNode answer(JsonNode id, List<JsonRpcMessage> said, JsonRpcMessage idless,
			RelayFailure otherwise) {
		for (JsonRpcMessage message : said) {
			if (message.isError() && id.equals(message.id())) {
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

	private static Said parse(byte[] body) {
		try {
			List<JsonRpcMessage> messages = JsonRpcParser.parse(body).messages();
			return new Said(messages, messages.stream().allMatch(JsonRpcMessage::isError));
		}
		catch (JsonRpcParseException notJsonRpc) {
			return new Said(List.of(), !holdsResultOrMethod(body));
		}
	}

	/** Whether {@code body} is JSON with an object holding {@code result} or {@code method}, alone or in an array. */
	private static boolean holdsResultOrMethod(byte[] body) {
		JsonNode root;
		try {
			root = JsonRpcParser.mapper().readTree(body);
		}
		catch (IOException | RuntimeException notJson) {
			return false;
		}
		if (root == null) {
			return false;
		}
		Iterable<JsonNode> messages = root.isArray() ? root : List.of(root);
		for (JsonNode message : messages) {
			if (message.has("result") || message.has("method")) {
				return true;
			}
		}
		return false;
	}

	/** The messages of an event stream's message events (the last one ended by the body's end). */
	private static Said parseEvents(byte[] body) {
		byte[] ended = new byte[body.length + 2];
		System.arraycopy(body, 0, ended, 0, body.length);
		ended[body.length] = '\n';
		ended[body.length + 1] = '\n';
		List<JsonRpcMessage> messages = new ArrayList<>();
		boolean onlyErrors = true;
		for (SseEvent event : new SseEventSplitter(ended.length)
			.split(DefaultDataBufferFactory.sharedInstance.wrap(ended))) {
			if (event.isMessage()) {
				Said said = parse(event.dataBytes());
				messages.addAll(said.messages());
				onlyErrors &= said.onlyErrors();
			}
		}
		return new Said(messages, onlyErrors);
	}

}
