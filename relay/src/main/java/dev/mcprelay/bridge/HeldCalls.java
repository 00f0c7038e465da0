package dev.mcprelay.bridge;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeoutException;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.session.SessionIds;
import dev.mcprelay.sse.SseEventWriter;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.util.concurrent.Queues;

/**
 * The calls of 2026-07-28 clients that a 2025 server asked something while it answered (sampling, elicitation, roots
 * on the call's stream), held open on this replica between the client's rounds (direction 2 of the bridge,
 * {@link PerRequestBridge}). The server's request ends the client's round with an {@code input_required} result: the
 * request under a key, and a {@code requestState} the relay signs ({@link RequestStates}) naming the held call, its
 * owner (the client's {@link ModernClient#key}), the server and the server's request id; the exchange with the server
 * stays open, unread, until the client comes back. The client's retry (its request again, with a new id,
 * {@code inputResponses} and that {@code requestState}) hands its answer to the server as the response to its
 * request, and the rest of the server's answer goes to the retry's stream: more rounds, then the result.
 *
 * <p>Bounds: a held call waits for the client's retry at most {@code idle} (the server's
 * {@code timeouts.streaming-idle}), then its exchange with the server is closed and a late retry is answered
 * {@code input_required_expired}; a retry that came in time stops that clock at once (the server may take its time to
 * accept the answer). A call whose exchange ended while it waited (the server's connection broke, the server ended its
 * answer) waits no more: it leaves the waiting calls at once, so that its retry is answered
 * {@code input_required_expired} without anything sent to the server and it no longer counts against
 * {@value #MAX_PER_CALLER}; a round holds at most {@value #ROUND_EVENTS} events the client has not read yet
 * (the server waits for its answer meanwhile, so few come), past which the call fails. A round's {@code requestState}
 * continues that round only: one of an earlier round of the same call is answered {@code input_required_expired}.
 *
 * <p>What a held call keeps of its request (the request as sent, which its exchange with the server holds:
 * {@link Held#keep}) counts in its caller's share of the memory budget for bodies, as twice its body, until the call
 * ends in any way ({@link Held#finish}); it keeps nothing more of the client's request (not its body in the
 * notification's request, {@link BridgedCancellations.Sent}, nor the call's plan through the gate of the server's later
 * requests, nor the client's bytes or tree through the exchange's trace that the gate's stages still tell of those
 * requests: review 46m, M2, measured once per held call), so that the share bounds what a caller's held calls keep,
 * and the caller's next request is refused ({@code relay_overloaded}) when they fill it.
 *
 * <p>Held calls are kept in memory on the replica that holds the exchange with the server, per server
 * ({@link BridgeFlights}), not per bridge: the retry reaches the call through the bridge a reload made for the server.
 * The {@code requestState} is signed with the relay's key ({@code sessions.secret}, shared by replicas), so a retry
 * that a load balancer sends to another replica is answered {@code input_required_expired} there (its state is valid,
 * the call is not held there), and the client asks again.
 */
final class HeldCalls {

	/**
	 * The most calls of one caller's that wait for a retry for one server on this replica (each holds one of the pool's
	 * connections to the server, {@code connection-pool.max-connections}); one more is answered {@code held_calls_full}
	 * at once, its exchange with the server ended.
	 */
	static final int MAX_PER_CALLER = 32;

	/** The most events of a round held for a client that has not read them. */
	static final int ROUND_EVENTS = 256;

	private final Map<String, Held> waiting;

	private final RequestStates states;

	private final String serverId;

	private final Duration idle;

	/** @param waiting the calls of the server that wait for a retry on this replica ({@link BridgeFlights#held}) */
	HeldCalls(RequestStates states, Map<String, Held> waiting, String serverId, Duration idle) {
		this.waiting = waiting;
		this.states = states;
		this.serverId = serverId;
		this.idle = idle;
	}

	/** How many calls wait for their client's retry now, on this replica. */
	int waiting() {
		return waiting.size();
	}

	/**
	 * A new call of {@code owner}'s (a client of {@code caller}'s), answering its request {@code call} (its target signed into the call's requestState:
	 * {@link HeldCallTargets}), sent in the
	 * upstream session {@code session}: a retry hands the client's answer to the server in that session, whatever
	 * session the store holds for the client by then. {@code sent}: the request as the server knows it, told cancelled
	 * when the call ends before its answer ({@link BridgedCancellations}).
	 */
	Held open(String owner, String caller, ObjectNode call, UpstreamSession session, BridgedCancellations.Sent sent) {
		Held held = new Held(waiting, owner, caller, call.get("id"), session, sent);
		held.target = HeldCallTargets.of(call);
		return held;
	}

	/**
	 * The call a retry's {@code requestState} names, taken from those that wait (it waits no more); {@code null} when
	 * the state is not one this relay signed for {@code owner} and this server (forged, altered, another client's) or
	 * the call waits no more here (expired, ended, held by another replica): {@link #verify} tells which.
	 */
	Held resume(String requestState, String owner) {
		ObjectNode state = verify(requestState, owner);
		if (state == null) {
			return null;
		}
		String call = state.path("call").asText();
		Held held = waiting.get(call);
		if (held == null || held.rounds != state.path("round").asInt(-1) || !waiting.remove(call, held)) {
			return null;
		}
		held.answering = state;
		held.taken.tryEmitEmpty();
		return held;
	}

	/**
	 * Why a retry ({@code retry}, whose {@code requestState} is {@code requestState}) is refused before anything is
	 * sent: not a state this relay signed for {@code owner} and this server, or one of a call of another method, tool,
	 * prompt, resource or arguments ({@link HeldCallTargets}); {@code null} when it is not refused.
	 */
	String refusal(String requestState, String owner, ObjectNode retry) {
		ObjectNode state = verify(requestState, owner);
		if (state == null) {
			return "The requestState of this request is not one the relay gave this client (forged, altered, or "
					+ "another's)";
		}
		if (!HeldCallTargets.of(retry).equals(state.path("target").asText())) {
			return "The requestState of this request continues a call of another method, tool, prompt, resource or "
					+ "arguments: a retry names what the call it continues named";
		}
		return null;
	}

	/** The state {@code requestState} holds, when this relay signed it for {@code owner} and this server; else null. */
	ObjectNode verify(String requestState, String owner) {
		ObjectNode state = states.verify(requestState);
		if (state == null || !owner.equals(state.path("owner").asText()) || !serverId.equals(state.path("server")
			.asText())) {
			return null;
		}
		return state;
	}

	/** Whether {@code requestState} has the form of one the relay signs (whoever made it). */
	static boolean isRelays(JsonNode requestState) {
		return requestState != null && requestState.isTextual() && RequestStates.hasForm(requestState.asText());
	}

	/**
	 * Ends {@code held}'s round with an {@code input_required} result asking its client {@code serverRequest} (a
	 * request of the server's), and waits for the client's retry; the events that follow (none: the retry's stream
	 * takes the rest). Fails the call when no retry comes within {@code idle}, and at once, with an error
	 * ({@code held_calls_full}), when its caller has {@value #MAX_PER_CALLER} calls of the server waiting already.
	 */
	Flux<byte[]> ask(Held held, ObjectNode serverRequest) {
		return Flux.defer(() -> {
			if (waiting.values().stream().filter(other -> other.caller.equals(held.caller)).count() >= MAX_PER_CALLER) {
				held.round.tryEmitNext(SseEventWriter.message(PerRequestBridge.error(held.clientId, -32603, "This "
						+ "caller has " + MAX_PER_CALLER + " calls of MCP server '" + serverId + "' waiting for their "
						+ "retry with the client's input already; answer one (or let it expire) first",
						"held_calls_full").toString()));
				held.finish();
				return Flux.<byte[]>empty();
			}
			String key = "mcp-relay-" + serverRequest.path("method").asText().replace('/', '-');
			ObjectNode state = JsonNodeFactory.instance.objectNode().put("call", held.id).put("owner", held.owner)
				.put("server", serverId).put("key", key).put("round", ++held.rounds).put("target", held.target);
			state.set("request", serverRequest.get("id"));
			ObjectNode answer = JsonNodeFactory.instance.objectNode().put("jsonrpc", "2.0");
			answer.set("id", held.clientId);
			ObjectNode result = answer.putObject("result").put("resultType", "input_required");
			ObjectNode asked = result.putObject("inputRequests").putObject(key);
			asked.set("method", serverRequest.get("method"));
			asked.set("params", serverRequest.has("params") ? serverRequest.get("params")
					: JsonNodeFactory.instance.objectNode());
			result.put("requestState", states.sign(state));
			Sinks.Empty<Void> resumed = Sinks.empty();
			Sinks.Empty<Void> taken = Sinks.empty();
			held.resumed = resumed;
			held.taken = taken;
			held.asking = true;
			waiting.put(held.id, held);
			Sinks.Many<byte[]> round = held.round;
			round.tryEmitNext(SseEventWriter.message(answer.toString()));
			round.tryEmitComplete();
			// the call lets go of the ended round, whose sink keeps the client's stream that read it and all that
			// stream's request held (its body, its plan: review 46m, M2); an event the server sends meanwhile fails the
			// call on the spent round, as it did on the ended one
			held.round = Held.spent();
			// the clock runs until a retry takes the call, not until the server accepted the answer it carries
			return taken.asMono()
				.timeout(idle)
				.then(resumed.asMono())
				.onErrorResume(TimeoutException.class, late -> {
					held.finish();
					return Mono.empty();
				})
				.thenMany(Flux.<byte[]>empty());
		});
	}

	/** One call held across its client's rounds. */
	static final class Held {

		final String id = SessionIds.mint();

		final String owner;

		/** The caller whose client made the call ({@link #MAX_PER_CALLER}). */
		final String caller;

		/** The id of the client's request the current round answers (a retry comes with a new one). */
		volatile JsonNode clientId;

		/** The events of the current round, for the client's stream. */
		volatile Sinks.Many<byte[]> round = newRound();

		/** How many rounds asked the client something so far: a requestState continues the latest only. */
		volatile int rounds;

		/** Whether the call waits for its client (an input_required result went out): the round's end ends nothing. */
		volatile boolean asking;

		/** What the call names ({@link HeldCallTargets}), signed into its requestState; set when it opens. */
		volatile String target;

		/** The state of the retry that resumed it (the key and the server's request id it answers). */
		volatile ObjectNode answering;

		volatile Sinks.Empty<Void> resumed = Sinks.empty();

		/** Completes when a retry takes the call from the waiting ones: its clock stops. */
		volatile Sinks.Empty<Void> taken = Sinks.empty();

		/** Completes when the call ends (its result, a failure, its expiry, its client gone): the exchange ends. */
		final Sinks.Empty<Void> done = Sinks.empty();

		/** Whether the call ended ({@link #finish}); set before its round is ended. */
		private volatile boolean ended;

		volatile Disposable exchange;

		/** The upstream session the call was sent in, which its retries answer the server in. */
		final UpstreamSession session;

		/** The calls that wait for a retry, which this one leaves when it ends. */
		private final Map<String, Held> waiting;

		/** The request as the server knows it: told cancelled when the call ends before its answer. */
		final BridgedCancellations.Sent sent;

		/** What the call keeps of its caller's share of the memory budget for bodies until it ends ({@link #keep}). */
		private CallerShare.Kept kept = CallerShare.Kept.NOTHING;

		Held(Map<String, Held> waiting, String owner, String caller, JsonNode clientId, UpstreamSession session,
				BridgedCancellations.Sent sent) {
			this.waiting = waiting;
			this.sent = sent;
			this.owner = owner;
			this.caller = caller;
			this.clientId = clientId;
			this.session = session;
		}

		/**
		 * A new round for the retry {@code retryId}, whose events go to its stream from now on; resumes the call. A
		 * call that ended meanwhile (its server's stream broke while the server took the client's answer: review 46e,
		 * N1) gets a round that ends at once with an error saying so, where it used to get one nothing fed, and the
		 * retry waited for the relay's streaming-idle.
		 */
		Flux<byte[]> next(JsonNode retryId) {
			clientId = retryId;
			Sinks.Many<byte[]> next = newRound();
			round = next;
			asking = false;
			Flux<byte[]> events = events();
			resumed.tryEmitEmpty();
			// read after the round is replaced, as finish() marks the end before it ends the round: one of the two
			// ends the new round
			if (ended) {
				next.tryEmitNext(SseEventWriter.message(PerRequestBridge.error(retryId, -32603, "The call this "
						+ "requestState continues ended while its MCP server took the answer (its answer broke off, or "
						+ "the call was cancelled); send the request again without it", "upstream_stream_broken")
					.toString()));
				next.tryEmitComplete();
			}
			return events;
		}

		/** The client's stream of this round: the call ends when the client leaves it before it asked anything. */
		Flux<byte[]> events() {
			return round.asFlux().doOnCancel(() -> {
				if (!asking) {
					finish();
				}
			});
		}

		/** Hands {@code event} to the round's stream; fails the call when the client let too many pile up. */
		void emit(byte[] event) {
			if (round.tryEmitNext(event).isFailure()) {
				// the client let too much pile up (or left): the call ends, its stream without a result
				finish();
			}
		}

		/**
		 * Ends the call: it waits no more, its round ends, and its exchange with the server; a call ended before the
		 * server answered it (abandoned, expired, refused, broken off) is told cancelled to the server.
		 */
		void finish() {
			ended = true;
			letGo();
			waiting.remove(id, this);
			sent.abandon();
			round.tryEmitComplete();
			done.tryEmitEmpty();
			Disposable held = exchange;
			if (held != null) {
				held.dispose();
			}
		}

		/**
		 * What the call keeps of its request while it lives, and its client between rounds (the request as relayed,
		 * which its exchange with the server holds, and as the relay's stages read it, for the server's later
		 * requests), counted in its caller's share ({@link CallerShare#carry}) until the call ends; closed at once
		 * when it ended already.
		 */
		void keep(CallerShare.Kept what) {
			synchronized (this) {
				if (!ended) {
					kept = what;
					return;
				}
			}
			what.close();
		}

		private void letGo() {
			CallerShare.Kept held;
			synchronized (this) {
				held = kept;
				kept = CallerShare.Kept.NOTHING;
			}
			held.close();
		}

		/** A round of its own that ended already. */
		static Sinks.Many<byte[]> spent() {
			Sinks.Many<byte[]> spent = newRound();
			spent.tryEmitComplete();
			return spent;
		}

		private static Sinks.Many<byte[]> newRound() {
			return Sinks.many().unicast().onBackpressureBuffer(Queues.<byte[]>get(ROUND_EVENTS).get());
		}

	}

}
