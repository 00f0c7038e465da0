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
 * The body is read as the upstream labelled it ({@link UpstreamBodyType}): an event stream whose message events each
 * hold one JSON-RPC message, else JSON whatever the type says ({@code +json}, {@code json-rpc}, no type). It fails
 * closed: the body may go to the client as it came only when it was read and holds exactly one JSON-RPC error for each
 * request, under that request's id, and nothing else; an encoded body, one that is no JSON-RPC, one that answers
 * only some requests or under id {@code null}, or holds a result, is replaced by the answers. An error page
 * ({@link UpstreamBodyType#page()}) is not read, and may go as it came.
 */
final class UpstreamErrorAnswers {

	private UpstreamErrorAnswers() {
	}

	/**
	 * The answers, and whether the body may still be relayed as it came.
	 *
	 * @param answers one per forwarded request, in the order they were sent
	 * @param replaced why the body may not go to the client as it came (for the log line: "held JSON-RPC messages
	 * other than errors", ...), or {@code null} when it may: a page, or a body of exactly one JSON-RPC error per
	 * request under its id
	 */
	record Answers(List<ObjectNode> answers, String replaced) {

		/** Whether the body may be relayed as it came (unless the error stage changed an answer). */
		boolean asCame() {
			return replaced == null;
		}

	}

	/**
	 * @param body the upstream's body, possibly empty or not JSON-RPC
	 * @param type what the upstream's head said of it
	 * @param pending the forwarded requests; each is taken as answered
	 * @param otherwise the failure for a request the body does not answer with an error
	 */
	static Answers of(byte[] body, UpstreamBodyType type, PendingRequests pending, RelayFailure otherwise) {
		Said read = type.page() ? new Said(List.of(), Kind.PAGE)
				: type.encoded() ? new Said(List.of(), Kind.UNREADABLE)
						: type.isEventStream() ? parseEvents(body) : parse(body);
		List<JsonRpcMessage> said = read.messages();
		JsonRpcMessage idless = said.size() == 1 && said.get(0).isError() && said.get(0).id().isNull() ? said.get(0)
				: null;
		List<ObjectNode> answers = new ArrayList<>();
		int ownErrors = 0;
		for (McpRequest request : pending.remaining()) {
			pending.take(request.id());
			JsonRpcMessage own = ownError(request.id(), said);
			if (own != null) {
				ownErrors++;
			}
			answers.add(own != null ? own.node() : answer(request.id(), idless, otherwise));
		}
		return new Answers(answers, replaced(read, ownErrors, answers.size()));
	}

	/** Why a body that {@code read} describes may not go as it came, or {@code null}. */
	private static String replaced(Said read, int ownErrors, int requests) {
		return switch (read.kind()) {
			case PAGE -> null;
			case MORE_THAN_ERRORS -> "held JSON-RPC messages other than errors";
			case UNREADABLE -> "held no JSON-RPC message the relay could read";
			case ONLY_ERRORS -> ownErrors == requests && read.messages().size() == requests ? null
					: "did not answer each of the " + requests + " request(s) with one error under its id";
		};
	}

	/** What a body is, as far as its being relayed as it came goes. */
	private enum Kind {

		/** An error page, not read. */
		PAGE,
		/** Valid JSON-RPC, errors only (or no message: an event stream of comments). */
		ONLY_ERRORS,
		/** A result, a request or a notification (a lenient client may read it, even in a body that is not all valid). */
		MORE_THAN_ERRORS,
		/** Empty, encoded, not JSON, or JSON that is not JSON-RPC. */
		UNREADABLE

	}

	/**
	 * What a body said: its JSON-RPC messages, and what kind of body it is. A body that is not all valid JSON-RPC (a
	 * batch with one invalid element, an invalid message beside a result) has no messages here, yet holds more than
	 * errors when any object in it has a {@code result} or a {@code method}: a lenient client may read that.
	 */
	private record Said(List<JsonRpcMessage> messages, Kind kind) {
	}

	private static JsonRpcMessage ownError(JsonNode id, List<JsonRpcMessage> said) {
		for (JsonRpcMessage message : said) {
			if (message.isError() && id.equals(message.id())) {
				return message;
			}
		}
		return null;
	}

	private static ObjectNode answer(JsonNode id, JsonRpcMessage idless, RelayFailure otherwise) {
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
			return new Said(messages,
					messages.stream().allMatch(JsonRpcMessage::isError) ? Kind.ONLY_ERRORS : Kind.MORE_THAN_ERRORS);
		}
		catch (JsonRpcParseException notJsonRpc) {
			return new Said(List.of(), holdsResultOrMethod(body) ? Kind.MORE_THAN_ERRORS : Kind.UNREADABLE);
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
		Kind kind = Kind.ONLY_ERRORS;
		for (SseEvent event : new SseEventSplitter(ended.length)
			.split(DefaultDataBufferFactory.sharedInstance.wrap(ended))) {
			if (event.isMessage()) {
				Said said = parse(event.dataBytes());
				messages.addAll(said.messages());
				if (said.kind() == Kind.MORE_THAN_ERRORS || kind == Kind.ONLY_ERRORS) {
					kind = said.kind(); // more than errors outweighs unreadable, which outweighs only errors
				}
			}
		}
		return new Said(messages, kind);
	}

}
