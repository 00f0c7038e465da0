package dev.mcprelay.bridge;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongFunction;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.jsonrpc.JsonRpcParser;
import dev.mcprelay.session.SessionIds;
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
 *
 * <p>What a round keeps is bounded: an answer that came while the round waits for others is kept as the bytes the
 * client sent (not their parsed tree), each counted in its caller's share of the memory budget for bodies
 * ({@link CallerShare#keep}) from its coming until the round goes on (every answer came: they are parsed and given
 * back) or ends (its time bound, its stream cancelled, its session ended): an answer the budget has no room for is
 * refused to the POST that brought it ({@code relay_overloaded}, 503), and the round waits for it still; and a session
 * has at most {@value #MAX_ROUNDS_PER_SESSION} rounds waiting on a replica ({@link #expect} refuses one more).
 */
final class ClientAnswers {

	/** The most rounds of one session that may wait for the client's answers at once, on one replica. */
	static final int MAX_ROUNDS_PER_SESSION = 32;

	private static final String ID_PREFIX = "mcp-relay-input-";

	/** What waits, by session and id ({@link #key}). */
	private final Map<String, Round> waiting = new ConcurrentHashMap<>();

	/** How many rounds wait, by session: a session waiting for none has no entry. */
	private final Map<String, Integer> rounds = new ConcurrentHashMap<>();

	/**
	 * One round's requests: their ids, by the key the server named each input request with; their answers; and what
	 * forgets them, for a round that ends before it waits (its stream cancelled while the requests are being sent).
	 */
	record Expected(Map<String, String> ids, Mono<Map<String, ObjectNode>> answers, Runnable forget) {
	}

	/**
	 * Mints an id for each of {@code keys} (the keys of a result's {@code inputRequests}) in {@code sessionId}; the
	 * answers complete, by key, when the client has answered every one of them (a JSON-RPC response each, result or
	 * error). Cancelling the answers, or their ending in any way, forgets what is still waited for and gives back what
	 * was kept; so does {@link Expected#forget}.
	 *
	 * @return {@code null}, waiting for nothing, when {@code sessionId} has {@value #MAX_ROUNDS_PER_SESSION} rounds
	 * waiting already
	 */
	Expected expect(String sessionId, List<String> keys) {
		boolean[] room = new boolean[1];
		rounds.compute(sessionId, (session, now) -> {
			int waits = now == null ? 0 : now;
			room[0] = waits < MAX_ROUNDS_PER_SESSION;
			return room[0] ? waits + 1 : now;
		});
		if (!room[0]) {
			return null;
		}
		Map<String, String> minted = new LinkedHashMap<>();
		for (String name : keys) {
			minted.put(name, ID_PREFIX + SessionIds.mint());
		}
		Round round = new Round(sessionId, minted);
		minted.values().forEach(id -> waiting.put(key(sessionId, id), round));
		Mono<Map<String, ObjectNode>> all = round.complete.asMono().doFinally(signal -> round.end());
		return new Expected(minted, all, round::end);
	}

	/**
	 * Hands {@code response} (a JSON-RPC response the client of {@code sessionId} sent, {@code body} as it sent it) to
	 * the round waiting for it; whether one was. What the round keeps of it until it goes on is taken by {@code keep}
	 * ({@link CallerShare#keep}) for the body's bytes, only for an answer a round waits for.
	 *
	 * @throws RuntimeException what {@code keep} throws (no room): the answer is not taken, and its round still waits
	 */
	boolean answer(String sessionId, ObjectNode response, byte[] body, LongFunction<CallerShare.Kept> keep) {
		JsonNode id = response.get("id");
		if (id == null || !id.isTextual() || !id.asText().startsWith(ID_PREFIX)) {
			return false;
		}
		String key = key(sessionId, id.asText());
		Round round = waiting.get(key);
		if (round == null) {
			return false;
		}
		CallerShare.Kept kept = keep.apply(body.length);
		if (!waiting.remove(key, round)) {
			kept.close();
			return false;
		}
		return round.give(id.asText(), body, kept);
	}

	/** {@link #answer(String, ObjectNode, byte[], LongFunction)} of an answer counted in no budget: for tests. */
	boolean answer(String sessionId, ObjectNode response) {
		return answer(sessionId, response, response.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8),
				bytes -> CallerShare.Kept.NOTHING);
	}

	/** How many answers are awaited now, on this replica. */
	int awaited() {
		return waiting.size();
	}

	/** How many rounds of {@code sessionId} wait now, on this replica. */
	int roundsOf(String sessionId) {
		return rounds.getOrDefault(sessionId, 0);
	}

	private static String key(String sessionId, String id) {
		return sessionId + ' ' + id;
	}

	/** An answer a round keeps until its others come: the bytes the client sent, and what counts them. */
	private record Given(byte[] body, CallerShare.Kept kept) {
	}

	/** One round's requests and the answers it keeps, until every one came or it ends. */
	private final class Round {

		private final String sessionId;

		/** The round's ids, by the key the server named each request with. */
		private final Map<String, String> ids;

		/** The answers that came, by id. */
		private final Map<String, Given> given = new HashMap<>();

		private final Sinks.One<Map<String, ObjectNode>> complete = Sinks.one();

		private boolean ended;

		Round(String sessionId, Map<String, String> ids) {
			this.sessionId = sessionId;
			this.ids = ids;
		}

		/**
		 * The answer to request {@code id}; when it is the last, every answer is parsed, what was kept given back, and
		 * the round goes on. An answer that comes once the round ended is given back at once.
		 */
		boolean give(String id, byte[] body, CallerShare.Kept kept) {
			Map<String, ObjectNode> all;
			synchronized (this) {
				if (ended || given.containsKey(id)) {
					kept.close();
					return false;
				}
				given.put(id, new Given(body, kept));
				if (given.size() < ids.size()) {
					return true;
				}
				all = new LinkedHashMap<>();
				try {
					ids.forEach((name, each) -> all.put(name, parse(given.get(each).body())));
				}
				finally {
					letGo();
				}
			}
			return complete.tryEmitValue(all).isSuccess();
		}

		/** The round ended (went on, or not): it waits for nothing more, and gives back what it kept. Idempotent. */
		void end() {
			synchronized (this) {
				if (ended) {
					return;
				}
				ended = true;
				letGo();
			}
			ids.values().forEach(id -> waiting.remove(key(sessionId, id), this));
			rounds.computeIfPresent(sessionId, (session, now) -> now <= 1 ? null : now - 1);
		}

		private void letGo() {
			given.values().forEach(kept -> kept.kept().close());
			given.clear();
		}

		private static ObjectNode parse(byte[] body) {
			try {
				return (ObjectNode) JsonRpcParser.mapper().readTree(body);
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		}

	}

}
