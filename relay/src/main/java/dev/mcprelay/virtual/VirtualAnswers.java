package dev.mcprelay.virtual;

import java.util.ArrayList;
import java.util.List;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.http.RelayResponse;
import dev.mcprelay.jsonrpc.JsonRpcParser;
import dev.mcprelay.metrics.ExchangeRecord;
import dev.mcprelay.proxy.RelayAnswers;
import reactor.core.publisher.Mono;

/**
 * How a virtual server writes an answer it made itself (a merged list, a routing error, {@code ping}): one JSON
 * message, or an event stream of warnings before it when the client takes one, with the virtual session's id; and what
 * the access log and meters say of it. Written as a server's whole answers are ({@link VirtualCall#whole}): a client
 * that takes none of a large answer (a merged list of many megabytes) for {@code timeouts.client-write} has its
 * connection closed, {@code client_write_timeout}, counted under the virtual server.
 */
final class VirtualAnswers {

	private VirtualAnswers() {
	}

	static Mono<Void> answer(VirtualCall call, ObjectNode response) {
		return answer(call, response, List.of());
	}

	/**
	 * Answers with {@code response}, after {@code warnings} when there are any and the client takes an event stream
	 * (else the warnings are left out: a JSON answer holds one message).
	 */
	static Mono<Void> answer(VirtualCall call, ObjectNode response, List<ObjectNode> warnings) {
		RelayResponse http = call.exchange().response();
		record(call, response);
		if (!warnings.isEmpty() && acceptsEventStream(call)) {
			List<ObjectNode> messages = new ArrayList<>(warnings);
			messages.add(response);
			Mono<Void> written = RelayAnswers.stream(http, messages, call.whole());
			// Set once the stream's headers are (the write commits them when subscribed).
			if (!call.stateless()) {
				http.headers().set("Mcp-Session-Id", call.session().id());
			}
			return written;
		}
		HttpHeaders headers = new HttpHeaders();
		if (call.session() != null) {
			headers.set("Mcp-Session-Id", call.session().id());
		}
		return RelayAnswers.answer(http, HttpStatus.OK, List.of(response), false, headers, call.whole());
	}

	/**
	 * What the access log and meters say of an answer the virtual server wrote: a result made of its members' answers
	 * is forwarded (unless the relay answered it itself), an error is the client's mistake unless a member failed.
	 */
	private static void record(VirtualCall call, ObjectNode response) {
		ExchangeRecord record = call.exchange().record();
		if (response.has("error")) {
			String reason = response.path("error").path("data").path("reason").asText("invalid_params");
			record.failed("member_unavailable".equals(reason), reason);
		}
		else if (!record.stoppedHere()) {
			record.forwarded(HttpStatus.OK.value());
		}
	}

	static boolean acceptsEventStream(VirtualCall call) {
		try {
			return call.exchange().requestHeaderView().getAccept().stream()
				.anyMatch(type -> type.isCompatibleWith(MediaType.TEXT_EVENT_STREAM) && !type.isWildcardType());
		}
		catch (RuntimeException ex) {
			return false;
		}
	}

	static ObjectNode result(JsonNode id, ObjectNode result) {
		ObjectNode response = JsonRpcParser.mapper().createObjectNode();
		response.put("jsonrpc", "2.0");
		response.set("id", id);
		response.set("result", result);
		return response;
	}

}
