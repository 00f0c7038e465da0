package dev.mcprelay.bridge;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.session.SessionIds;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * The answers a round of {@link InputRounds} waits for: the relay sends a bridged session's client the server requests
 * a 2026-07-28 result asked for, each under an id the relay mints ({@code mcp-relay-input-} and 256 random bits, as a
 * session id: {@link SessionIds}), and the client POSTs its answer to each in its session; {@link #answer} hands such
 * an answer to the round that waits for it. Since no two ids are the same (whichever bridge minted them: the bridges a
 * reload makes for a changed server, other replicas sharing the session store, a relay that restarted), an answer is
 * taken only by the round whose request it answers, never by another round of the session that happens to wait; and
 * only in the session the request was sent in, only once, and only while the round waits (a late, repeated or unknown
 * answer is not for anyone, and is dropped). What waits is kept on this replica: a client whose
 * answer a load balancer sends to another replica is not answered there, and its round ends at its time bound.
 */
final class ClientAnswers {

	private static final String ID_PREFIX = "mcp-relay-input-";

	/** What waits, by session and id ({@link #key}). */
	private final Map<String, Sinks.One<ObjectNode>> waiting = new ConcurrentHashMap<>();

	/**
	 * One round's requests: their ids, by the key the server named each input request with; their answers; and what
	 * forgets them, for a round that ends before it waits (its stream cancelled while the requests are being sent).
	 */
	record Expected(Map<String, String> ids, Mono<Map<String, ObjectNode>> answers, Runnable forget) {
	}

	/**
	 * Mints an id for each of {@code keys} (the keys of a result's {@code inputRequests}) in {@code sessionId}; the
	 * answers complete, by key, when the client has answered every one of them (a JSON-RPC response each, result or
	 * error). Cancelling the answers, or their ending in any way, forgets what is still waited for; so does
	 * {@link Expected#forget}.
	 */
	Expected expect(String sessionId, List<String> keys) {
		Map<String, String> minted = new LinkedHashMap<>();
		Map<String, Mono<ObjectNode>> answers = new LinkedHashMap<>();
		for (String name : keys) {
			String id = ID_PREFIX + SessionIds.mint();
			minted.put(name, id);
			Sinks.One<ObjectNode> answer = Sinks.one();
			answers.put(name, answer.asMono());
			waiting.put(key(sessionId, id), answer);
		}
		Runnable forget = () -> minted.values().forEach(id -> waiting.remove(key(sessionId, id)));
		Mono<Map<String, ObjectNode>> all = Flux.fromIterable(answers.entrySet())
			.flatMap(entry -> entry.getValue().map(answer -> Map.entry(entry.getKey(), answer)))
			.collectMap(Map.Entry::getKey, Map.Entry::getValue, LinkedHashMap::new)
			.doFinally(signal -> forget.run());
		return new Expected(minted, all, forget);
	}

	/**
	 * Hands {@code response} (a JSON-RPC response the client of {@code sessionId} sent) to the round waiting for it;
	 * whether one was.
	 */
	boolean answer(String sessionId, ObjectNode response) {
		JsonNode id = response.get("id");
		if (id == null || !id.isTextual() || !id.asText().startsWith(ID_PREFIX)) {
			return false;
		}
		Sinks.One<ObjectNode> waits = waiting.remove(key(sessionId, id.asText()));
		return waits != null && waits.tryEmitValue(response).isSuccess();
	}

	/** How many answers are awaited now, on this replica. */
	int awaited() {
		return waiting.size();
	}

	private static String key(String sessionId, String id) {
		return sessionId + ' ' + id;
	}

}
