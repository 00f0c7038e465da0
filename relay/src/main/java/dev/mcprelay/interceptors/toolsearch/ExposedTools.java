package dev.mcprelay.interceptors.toolsearch;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import dev.mcprelay.api.CallContext;
import dev.mcprelay.api.RejectError;
import dev.mcprelay.api.jsonrpc.JsonRpcErrorCodes;
import dev.mcprelay.session.SessionKey;
import dev.mcprelay.session.SessionState;
import dev.mcprelay.session.SessionStore;
import dev.mcprelay.session.SessionStoreUnavailableException;
import reactor.core.publisher.Mono;

/**
 * The tools a tool-search session has found, as the {@link SessionStore} keeps them under the session id the client
 * holds (on any replica that shares the store): read when the session lists or calls, added to when it searches.
 * A request without a session id (MCP 2026-07-28) has no state here and changes none. Each answer of the store is
 * the caller's own: a session another caller opened is refused as one the store does not know (404,
 * {@code session_not_found}, so that the client initializes again), and a store that does not answer is refused
 * with 503 ({@code session_store_unavailable}, retry after a second). Nothing here blocks; each method does nothing
 * until subscribed.
 */
final class ExposedTools {

	private final SessionStore store;

	ExposedTools(SessionStore store) {
		this.store = store;
	}

	/**
	 * The state of the request's session, once the store has it and it is the caller's; empty without a session id;
	 * an error ({@link RejectError}) as the class says otherwise.
	 */
	Mono<SessionState> of(CallContext context) {
		SessionKey key = key(context);
		if (key == null) {
			return Mono.empty();
		}
		String caller = context.caller().id();
		return store.find(key)
			.onErrorMap(SessionStoreUnavailableException.class, ExposedTools::storeUnavailable)
			.filter(state -> Objects.equals(state.callerId(), caller))
			.switchIfEmpty(Mono.error(() -> new RejectError(JsonRpcErrorCodes.INVALID_REQUEST, "Session not found: "
					+ "this relay does not know the session (it ended or expired); initialize a new one.",
					Map.of("reason", "session_not_found")).withHttpStatus(404, null)));
	}

	/**
	 * Adds {@code tools} to what the request's session exposes; nothing without a session id. The caller has read the
	 * session with {@link #of} in this request (which checked that it is its own).
	 */
	Mono<Void> expose(CallContext context, List<String> tools) {
		SessionKey key = key(context);
		return key == null ? Mono.empty()
				: store.expose(key, tools).onErrorMap(SessionStoreUnavailableException.class, ExposedTools::storeUnavailable);
	}

	private static RejectError storeUnavailable(Throwable error) {
		return new RejectError(JsonRpcErrorCodes.INTERNAL_ERROR, "The relay's session store is unavailable; try again "
				+ "shortly.", Map.of("reason", "session_store_unavailable")).withHttpStatus(503, Duration.ofSeconds(1));
	}

	private static SessionKey key(CallContext context) {
		String id = context.sessionId();
		return id == null || id.isEmpty() ? null : new SessionKey(context.server(), id);
	}

}
