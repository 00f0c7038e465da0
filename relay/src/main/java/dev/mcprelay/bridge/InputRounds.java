package dev.mcprelay.bridge;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.sse.SseEventWriter;
import dev.mcprelay.transport.UpstreamRequest;
import dev.mcprelay.transport.UpstreamResponse;
import dev.mcprelay.transport.UpstreamTransport;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * Carries a request of a 2025 client's bridged session through the rounds in which a 2026-07-28 server asks for input
 * (MCP 2026-07-28's multi round-trip requests), so that the client sees the server requests it knows and then one
 * result. A result with {@code resultType: input_required} becomes, on the stream that answers the client's request,
 * the requests its {@code inputRequests} embed ({@code elicitation/create}, {@code sampling/createMessage},
 * {@code roots/list}), each as a server-to-client request of the session with an id the relay mints
 * ({@link ClientAnswers}); once the client has answered every one, the client's request goes to the server again, with
 * its own id, {@code params.inputResponses} holding each answer's result under the key the server named it by, and
 * {@code params.requestState} exactly as the server gave it (the relay never reads it, and sends none when none came).
 * The answer to that is the client's, or the next round's. A result that embeds no request but a
 * {@code requestState} (a server shedding load) is sent again after {@value #PACING_MS} ms.
 *
 * <p>Bounds: at most {@value #MAX_ROUNDS} rounds per request, then the request is answered with a JSON-RPC error
 * ({@code input_required_rounds_exceeded}); a session has at most {@value ClientAnswers#MAX_ROUNDS_PER_SESSION}
 * rounds waiting at once, one more answered with a JSON-RPC error ({@code input_rounds_full}), and what a round keeps of
 * the answers that came counts in the caller's share of the memory budget for bodies ({@link ClientAnswers}); each round waits for the client's answers at most {@code roundTimeout}
 * (the server's {@code timeouts.streaming-idle}), the stream kept alive with a comment every third of it meanwhile,
 * then answers the request with a JSON-RPC error ({@code input_required_timeout}). A client that answers a server
 * request with a JSON-RPC error ends the request with one ({@code input_request_failed}): 2026-07-28 carries only
 * results back to the server. Every error is -32603 with {@code data.reason}. Cancelling the stream (the client went
 * away, cancelled the request or ended its session: {@link SessionBridge}) forgets what the round waits for and
 * cancels the exchange with the server in flight.
 */
final class InputRounds {

	/** The most rounds of input one request may take. */
	static final int MAX_ROUNDS = 8;

	/** The server requests a round may send the client, as the 2026-07-28 inputRequests may name them. */
	private static final java.util.Set<String> ASKABLE = java.util.Set.of("elicitation/create", "sampling/createMessage",
			"roots/list");

	/** The pause before sending again a request whose result embedded no request (only a requestState). */
	static final long PACING_MS = 250;

	private static final byte[] WAITING = ": mcp-relay is waiting for the client's input\n\n"
		.getBytes(StandardCharsets.US_ASCII);

	private final UpstreamTransport server;

	private final String serverId;

	private final long maxBytes;

	private final Duration roundTimeout;

	private final ClientAnswers answers;

	InputRounds(UpstreamTransport server, String serverId, long maxBytes, Duration roundTimeout,
			ClientAnswers answers) {
		this.server = server;
		this.serverId = serverId;
		this.maxBytes = maxBytes;
		this.roundTimeout = roundTimeout;
		this.answers = answers;
	}

	/**
	 * One bridged request in flight.
	 *
	 * @param relayed the relay's request for the server (its URI, headers and caller)
	 * @param original the client's request as it sent it (not to be changed)
	 * @param client the session's client
	 * @param sessionId the client's session
	 */
	record Call(UpstreamRequest relayed, ObjectNode original, BridgedClient client, String sessionId) {
	}

	/** The client's events that take the place of {@code answer}, the server's {@code input_required} result. */
	Flux<byte[]> after(Call call, ObjectNode answer) {
		return round(call, answer, 1);
	}

	private Flux<byte[]> round(Call call, ObjectNode answer, int round) {
		JsonNode id = call.original().get("id");
		if (round > MAX_ROUNDS) {
			return Flux.just(error(id, "input_required_rounds_exceeded", "MCP server '" + serverId + "' still asked "
					+ "for input after " + MAX_ROUNDS + " rounds"));
		}
		JsonNode result = answer.path("result");
		JsonNode state = result.get("requestState");
		JsonNode requests = result.path("inputRequests");
		List<String> keys = new ArrayList<>();
		requests.fieldNames().forEachRemaining(keys::add);
		boolean stateOnly = state != null && state.isTextual();
		for (String key : keys) {
			JsonNode asked = requests.get(key);
			if (!(asked instanceof ObjectNode) || !ASKABLE.contains(asked.path("method").asText())
					|| (asked.has("params") && !asked.get("params").isObject())) {
				return Flux.just(error(id, "input_required_invalid", "MCP server '" + serverId + "' asked for input "
						+ "'" + key + "' with no request a 2025 client answers (elicitation/create, "
						+ "sampling/createMessage or roots/list, with params an object)"));
			}
		}
		if (keys.isEmpty()) {
			if (!stateOnly) {
				return Flux.just(error(id, "input_required_invalid", "MCP server '" + serverId + "' asked for input "
						+ "with neither inputRequests nor requestState"));
			}
			return Mono.delay(Duration.ofMillis(PACING_MS)).thenMany(retry(call, Map.of(), state, round));
		}
		ClientAnswers.Expected expected = answers.expect(call.sessionId(), keys);
		if (expected == null) {
			return Flux.just(error(id, "input_rounds_full", "This session has " + ClientAnswers.MAX_ROUNDS_PER_SESSION
					+ " requests waiting for its answers to the server's requests for input already; answer them "
					+ "first"));
		}
		Flux<byte[]> asked = Flux.fromIterable(keys).map(key -> {
			JsonNode request = requests.get(key);
			ObjectNode message = JsonNodeFactory.instance.objectNode();
			message.put("jsonrpc", "2.0").put("id", expected.ids().get(key)).put("method", request.path("method").asText());
			if (request.get("params") instanceof ObjectNode params) {
				message.set("params", params.deepCopy());
			}
			return SseEventWriter.message(message.toString());
		});
		Sinks.Empty<Void> answered = Sinks.empty();
		Flux<byte[]> keptAlive = Flux.interval(roundTimeout.dividedBy(3)).map(tick -> WAITING)
			.takeUntilOther(answered.asMono());
		Flux<byte[]> next = expected.answers()
			.timeout(roundTimeout)
			.doFinally(signal -> answered.tryEmitEmpty())
			.flatMapMany(given -> {
				for (Map.Entry<String, ObjectNode> entry : given.entrySet()) {
					if (!(entry.getValue().get("result") instanceof ObjectNode)) {
						return Flux.just(error(id, "input_request_failed", "The client answered the server's "
								+ requests.get(entry.getKey()).path("method").asText() + " request with an error: "
								+ entry.getValue().path("error").path("message").asText("(no message)")));
					}
				}
				return retry(call, given, state, round);
			})
			.onErrorResume(TimeoutException.class, late -> Flux.just(error(id, "input_required_timeout",
					"The client did not answer the server's requests for input within " + roundTimeout)));
		return asked.concatWith(Flux.merge(keptAlive, next)).doFinally(signal -> expected.forget().run());
	}

	/** The client's request sent again with its answers and the server's requestState; its answer's events. */
	private Flux<byte[]> retry(Call call, Map<String, ObjectNode> given, JsonNode state, int round) {
		ObjectNode retry = call.original().deepCopy();
		ObjectNode params = retry.get("params") instanceof ObjectNode kept ? kept : retry.putObject("params");
		params.remove(List.of("inputResponses", "requestState"));
		if (!given.isEmpty()) {
			ObjectNode responses = params.putObject("inputResponses");
			given.forEach((key, answer) -> responses.set(key, answer.get("result")));
		}
		if (state != null && state.isTextual()) {
			params.set("requestState", state);
		}
		UpstreamRequest request = ModernRequests.of(call.relayed(), retry, call.client(), null);
		return exchange(request, response -> BridgedAnswers.asEvents(response, serverId, maxBytes,
				new BridgedAnswers.Turn(message -> SessionResults.toSession(message, serverId),
						next -> SessionResults.asksForInput(next) ? round(call, next, round + 1) : null, true)));
	}

	/**
	 * One exchange with the server as the events {@code reader} makes of its answer: the exchange ends when they do
	 * (cancelling them cancels it), and fails them when it fails before an answer.
	 */
	private Flux<byte[]> exchange(UpstreamRequest request, Function<UpstreamResponse, Flux<byte[]>> reader) {
		return BridgedAnswers.ofExchange(handler -> server.send(request, handler), reader);
	}

	/** A JSON-RPC error for request {@code id}, as an event: -32603 with {@code data.reason}. */
	private static byte[] error(JsonNode id, String reason, String message) {
		ObjectNode error = com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode().put("jsonrpc",
				"2.0");
		error.set("id", id);
		ObjectNode body = error.putObject("error").put("code", -32603).put("message", message);
		body.putObject("data").put("reason", reason);
		return SseEventWriter.message(error.toString());
	}

}
