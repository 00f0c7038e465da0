package dev.mcprelay.proxy;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

import dev.mcprelay.bridge.VersionBridge;
import dev.mcprelay.security.SessionBinding;
import dev.mcprelay.session.SessionIds;
import dev.mcprelay.session.SessionKey;
import dev.mcprelay.session.SessionStore;
import dev.mcprelay.transport.UpstreamResponse;
import reactor.core.publisher.Mono;

/**
 * Records the sessions of servers with a stateful feature (tool search) in the {@link SessionStore}, under the session
 * id the client is given, bound to the caller, when their {@code initialize} is answered; before the client gets the
 * answer, so that its next request finds the session on any replica that shares the store. Other servers keep no
 * state. A store that cannot record the session fails the {@code initialize} with 503: the client would otherwise
 * hold a session the relay refuses on its next request.
 *
 * <p>An upstream that keeps no sessions (it gives no {@code Mcp-Session-Id}) still gets its client a session: one the
 * relay mints ({@link #MINTED}, 256 random bits; DESIGN section 7), which the client's later requests carry and the
 * upstream never sees ({@link #isMinted}: the header rules leave it out).
 */
@Component
public class RelaySessions {

	private static final Logger log = LoggerFactory.getLogger(RelaySessions.class);

	/** How a session id the relay minted begins. */
	public static final String MINTED = "mcp-relay-";

	private final SessionStore store;

	private final SessionBinding sessionBinding;

	RelaySessions(SessionStore store, SessionBinding sessionBinding) {
		this.store = store;
		this.sessionBinding = sessionBinding;
	}

	/** Whether {@code sessionId} is one the relay minted for a client of an upstream without sessions. */
	public static boolean isMinted(String sessionId) {
		return sessionId != null && sessionId.startsWith(MINTED);
	}

	/** Records the session {@code response} opened, if it opened one that needs state. */
	Mono<Void> opened(RelayCall call, UpstreamResponse response) {
		Upstream upstream = call.upstream();
		if (call.plan() == null || !upstream.properties().toolSearch().enabled()
				|| !response.statusCode().is2xxSuccessful() || !call.plan().payload().contains("initialize")) {
			return Mono.empty();
		}
		String upstreamSessionId = response.headers().getFirst(HeaderRules.MCP_SESSION_ID);
		if (VersionBridge.isBridgedSession(upstreamSessionId)) {
			// the version bridge's own session, already in the store with what the bridge keeps for it
			return Mono.empty();
		}
		boolean minted = upstreamSessionId == null || upstreamSessionId.isEmpty();
		String sessionId = minted ? MINTED + SessionIds.mint() : upstreamSessionId;
		if (minted) {
			// the upstream keeps no session: the client gets the relay's (bound to it as the upstream's would be)
			call.exchange().response().headers().set(HeaderRules.MCP_SESSION_ID, sessionBinding.enabled()
					? sessionBinding.bind(upstream.id(), call.context().caller(), sessionId) : sessionId);
		}
		return store.open(new SessionKey(upstream.id(), sessionId), call.context().caller().id())
			.onErrorResume(error -> {
				log.warn("A session of '{}' could not be recorded: {}", upstream.id(), UpstreamFailures.describe(error));
				return response.releaseBody().then(Mono.error(RelayFailures.sessionStoreUnavailable(upstream.id())));
			});
	}

}
