package dev.mcprelay.bridge;

import java.nio.charset.StandardCharsets;
import java.util.function.Function;

import org.springframework.http.HttpHeaders;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.transport.LocalUpstreamResponse;
import dev.mcprelay.transport.UpstreamRequest;
import dev.mcprelay.transport.UpstreamResponse;
import dev.mcprelay.transport.UpstreamTransport;
import reactor.core.publisher.Mono;

/**
 * A 2026-07-28 client's retry with its input, continuing a call held for it ({@link HeldCalls}, direction 2 of the
 * bridge, {@link PerRequestBridge}): its {@code requestState} is verified (refused, -32602
 * {@code request_state_invalid}, when this relay did not sign it for this client and server: forged, altered,
 * another's), the client's answer goes to the server as the response to its request, in the session the call was sent
 * in, and the retry's stream gets the rest of the held call's answer. A call that waits no more is answered
 * {@code input_required_expired}, nothing sent. A retry that fails to hand the answer on, or leaves first, ends the
 * call (which tells the server its request is cancelled, {@link BridgedCancellations}).
 */
final class HeldCallRetries {

	private final UpstreamTransport server;

	private final HeldCalls calls;

	HeldCallRetries(UpstreamTransport server, HeldCalls calls) {
		this.server = server;
		this.calls = calls;
	}

	/** The retry {@code message} (of {@code client}, relayed as {@code request}), answered through {@code handler}. */
	Mono<Void> resume(UpstreamRequest request, ObjectNode message, ModernClient client, Runnable onWritten,
			Function<UpstreamResponse, Mono<Void>> handler) {
		JsonNode id = message.get("id");
		String token = message.path("params").path("requestState").asText();
		String refused = calls.refusal(token, client.key(), message);
		if (refused != null) {
			onWritten.run();
			return handler.apply(LocalUpstreamResponse.json(new HttpHeaders(), bytes(PerRequestBridge.error(id, -32602,
					refused, "request_state_invalid"))));
		}
		HeldCalls.Held held = calls.resume(token, client.key());
		if (held == null) {
			onWritten.run();
			return handler.apply(LocalUpstreamResponse.json(new HttpHeaders(), bytes(PerRequestBridge.error(id, -32603,
					"The call this requestState continues waits no more on this relay (it waited longer than the "
							+ "server's streaming-idle, ended, or another replica holds it); send the request again "
							+ "without it", "input_required_expired"))));
		}
		ObjectNode state = held.answering;
		JsonNode given = message.path("params").path("inputResponses").get(state.path("key").asText());
		ObjectNode response = JsonNodeFactory.instance.objectNode().put("jsonrpc", "2.0");
		response.set("id", state.get("request"));
		if (given instanceof ObjectNode result) {
			response.set("result", result);
		}
		else {
			response.putObject("error").put("code", -32603).put("message", "The client gave no answer");
		}
		// in the session the call was sent in (the store's entry for the client may have expired since, or been
		// replaced): the server knows its request there only; a retry that fails to hand the answer on, or leaves
		// first, ends the call, which no clock bounds any more
		return server.send(SessionEraRequests.inSession(request, response, held.session, onWritten),
				UpstreamResponse::releaseBody)
			.doOnError(failed -> held.finish())
			.doOnCancel(held::finish)
			.then(Mono.defer(() -> handler.apply(LocalUpstreamResponse.eventStream(new HttpHeaders(),
					held.next(id)))));
	}

	private static byte[] bytes(JsonNode node) {
		return node.toString().getBytes(StandardCharsets.UTF_8);
	}

}
