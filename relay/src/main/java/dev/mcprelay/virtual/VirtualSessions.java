package dev.mcprelay.virtual;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

import org.springframework.stereotype.Component;

import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.api.jsonrpc.JsonRpcErrors;
import dev.mcprelay.proxy.RelayFailures;
import dev.mcprelay.session.SessionIds;
import dev.mcprelay.session.SessionKey;
import dev.mcprelay.session.SessionState;
import dev.mcprelay.session.SessionStore;
import dev.mcprelay.session.SessionStoreUnavailableException;
import reactor.core.publisher.Mono;

/**
 * A virtual server's client sessions (DESIGN section 7): each a relay session under an id the relay mints (256
 * random bits), opened by one caller, holding one {@link MemberSession} per member it joined, in the relay's session
 * store, so that any replica sharing the store continues it. An unknown or expired id, or one another caller opened,
 * is a session that ended (404); a store that cannot answer is 503.
 */
@Component
class VirtualSessions {

	/** Where the session keeps the client's {@code initialize} request: a key no member id can be. */
	private static final String INITIALIZE = "";

	/** Where the session keeps the level the client asked for ({@code logging/setLevel}): no member id either. */
	private static final String LOGGING_LEVEL = " logging-level";

	/** What marks a session a reload ended ({@link #retire}): no member id either. */
	private static final String ENDED = " ended";

	/** Where the session keeps what it was opened under ({@link VirtualSessionTerms}): no member id either. */
	private static final String TERMS = " terms";

	/** Where the session keeps the lists its {@code initialize} result announced (space-separated): no member id. */
	private static final String ANNOUNCED = " announced";

	private final SessionStore store;

	VirtualSessions(SessionStore store) {
		this.store = store;
		SessionIds.mint(); // seeds the generator now, off the event loops
	}

	/** A fresh session id ({@link SessionIds}: 256 random bits). */
	static String mint() {
		return SessionIds.mint();
	}

	/**
	 * Records session {@code id} of {@code virtualId}, opened by {@code callerId} with the client's {@code initialize}
	 * request (kept to join members later), with the members it joined, under {@code terms} (the virtual server's
	 * settings, {@link VirtualSessionTerms}), having announced the lists {@code announced} to its client.
	 */
	Mono<Void> open(String virtualId, String id, String callerId, ObjectNode initialize,
			Map<String, MemberSession> members, String terms, Set<String> announced) {
		SessionKey key = new SessionKey(virtualId, id);
		return store.open(key, callerId)
			.then(store.join(key, INITIALIZE, new String(JsonRpcErrors.toBytes(initialize), StandardCharsets.UTF_8)))
			.then(store.join(key, TERMS, terms))
			.then(store.join(key, ANNOUNCED, String.join(" ", announced)))
			.then(Mono.when(members.entrySet().stream()
				.map(member -> store.join(key, member.getKey(), member.getValue().stored()))
				.toList()))
			.onErrorMap(SessionStoreUnavailableException.class, ex -> RelayFailures.sessionStoreUnavailable(virtualId));
	}

	/**
	 * Session {@code id}, for {@code callerId}; fails with 404 when the store holds none for that caller. {@code gone}
	 * runs first when the store holds no session under {@code id} at all (it expired, was evicted or ended), never when
	 * it holds one of another caller's: that session is not this request's to end. A session a reload ended
	 * ({@link #retire}) is answered 404 {@code session_ended} ({@code gone} runs first), so that the client initializes
	 * again: on every replica, as often as it is asked, until it expires (the store keeps it so, counted among its
	 * caller's sessions until then).
	 */
	Mono<VirtualSession> find(String virtualId, String id, String callerId, Runnable gone) {
		SessionKey key = new SessionKey(virtualId, id);
		return store.find(key)
			.switchIfEmpty(Mono.fromRunnable(gone))
			.filter(state -> Objects.equals(state.callerId(), callerId) && state.members().containsKey(INITIALIZE))
			// kept marked until it expires (not forgotten at its first 404): every replica answers it alike
			.flatMap(state -> !state.members().containsKey(ENDED) ? Mono.just(state)
					: Mono.fromRunnable(gone).then(Mono.<SessionState>error(() -> RelayFailures.sessionEnded(virtualId))))
			.map(state -> {
				Map<String, MemberSession> members = new LinkedHashMap<>();
				state.members().forEach((member, stored) -> {
					if (!member.equals(INITIALIZE) && !member.equals(LOGGING_LEVEL) && !member.equals(ENDED)
							&& !member.equals(TERMS) && !member.equals(ANNOUNCED)) {
						members.put(member, MemberSession.ofStored(stored));
					}
				});
				ObjectNode initialize = MemberMessages.parse(state.members().get(INITIALIZE).getBytes(StandardCharsets.UTF_8));
				String announced = state.members().get(ANNOUNCED);
				return new VirtualSession(id, members, initialize, state.exposedTools(),
						state.members().get(LOGGING_LEVEL), state.members().get(TERMS),
						announced == null ? null : announcedLists(announced));
			})
			.switchIfEmpty(Mono.error(() -> RelayFailures.unknownSession(virtualId)))
			.onErrorMap(SessionStoreUnavailableException.class, ex -> RelayFailures.sessionStoreUnavailable(virtualId));
	}

	/** The lists kept as {@code stored} ({@link #ANNOUNCED}). */
	private static Set<String> announcedLists(String stored) {
		Set<String> lists = new LinkedHashSet<>();
		for (String list : stored.split(" ")) {
			if (!list.isEmpty()) {
				lists.add(list);
			}
		}
		return lists;
	}

	/**
	 * Whether the store still holds session {@code id} and no reload marked it ended ({@link #retire}: on any
	 * replica), without counting as a use of it.
	 */
	Mono<Boolean> live(String virtualId, String id) {
		SessionKey key = new SessionKey(virtualId, id);
		return store.exists(key)
			.flatMap(exists -> exists ? store.holds(key, ENDED).map(ended -> !ended) : Mono.just(false))
			.onErrorMap(SessionStoreUnavailableException.class, ex -> RelayFailures.sessionStoreUnavailable(virtualId));
	}

	/** Keeps {@code level}, the client's last {@code logging/setLevel}, in session {@code id}. */
	Mono<Void> loggingLevel(String virtualId, String id, String level) {
		return store.join(new SessionKey(virtualId, id), LOGGING_LEVEL, level)
			.onErrorMap(SessionStoreUnavailableException.class, ex -> RelayFailures.sessionStoreUnavailable(virtualId));
	}

	/** The level session {@code id}'s client last asked for, if it is still held and asked for one. */
	Mono<String> loggingLevel(String virtualId, String id) {
		return store.find(new SessionKey(virtualId, id))
			.mapNotNull(state -> state.members().get(LOGGING_LEVEL))
			.onErrorMap(SessionStoreUnavailableException.class, ex -> RelayFailures.sessionStoreUnavailable(virtualId));
	}

	/** Adds (or replaces) what session {@code id} keeps for {@code member}. */
	Mono<Void> join(String virtualId, String id, String member, MemberSession session) {
		return store.join(new SessionKey(virtualId, id), member, session.stored())
			.onErrorMap(SessionStoreUnavailableException.class, ex -> RelayFailures.sessionStoreUnavailable(virtualId));
	}

	/**
	 * Marks session {@code id} as ended by a reload that removed or changed its virtual server: a request naming it is
	 * answered 404 {@code session_ended} ({@link #find}), on any replica sharing the store, until it expires. A no-op for
	 * a session the store no longer holds.
	 */
	Mono<Void> retire(String virtualId, String id) {
		return store.join(new SessionKey(virtualId, id), ENDED, "");
	}

	/** Forgets session {@code id}. */
	Mono<Void> end(String virtualId, String id, String callerId) {
		return store.end(new SessionKey(virtualId, id), callerId)
			.onErrorMap(SessionStoreUnavailableException.class, ex -> RelayFailures.sessionStoreUnavailable(virtualId));
	}

}
