package dev.mcprelay.session;

import java.util.Collection;

import reactor.core.publisher.Mono;

/**
 * The relay's state per client session (DESIGN section 7), for the features that need some (tool search): in memory
 * per replica ({@code mcp-relay.sessions.store: memory}, the default) or in Redis shared by every replica
 * ({@code redis}). Entries expire after {@code mcp-relay.sessions.idle-timeout} without use; every read or write is a
 * use. Each call is bounded; a store that cannot answer fails with {@link SessionStoreUnavailableException}.
 */
public interface SessionStore {

	/** Records a new session (its {@code initialize} was answered), opened by {@code callerId}. */
	Mono<Void> open(SessionKey key, String callerId);

	/** The session's state; empty when the store does not know it (never opened here, or expired). */
	Mono<SessionState> find(SessionKey key);

	/**
	 * Whether the store still holds the session, without counting as a use (its idle expiry is not renewed): for a
	 * replica that checks whether a session it served ended elsewhere, expired or was evicted.
	 */
	Mono<Boolean> exists(SessionKey key);

	/**
	 * Whether the store holds the session with something kept for {@code member} ({@link #join}), without counting as
	 * a use: {@code false} for a session it does not hold.
	 */
	Mono<Boolean> holds(SessionKey key, String member);

	/** Adds tools to what the session exposes; a no-op for a session the store does not know. */
	Mono<Void> expose(SessionKey key, Collection<String> tools);

	/**
	 * Keeps {@code state} for member {@code member} of a virtual server's session (its session with that member),
	 * replacing what was kept for it; a no-op for a session the store does not know.
	 */
	Mono<Void> join(SessionKey key, String member, String state);

	/** Forgets the session (the client ended it), opened by {@code callerId}. */
	Mono<Void> end(SessionKey key, String callerId);

}
