package dev.mcprelay.proxy;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

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
 */
@Component
class RelaySessions {

	private static final Logger log = LoggerFactory.getLogger(RelaySessions.class);

	private final SessionStore store;

	RelaySessions(SessionStore store) {
		this.store = store;
	}

	/** Records the session {@code response} opened, if it opened one that needs state. */
	Mono<Void> opened(RelayCall call, UpstreamResponse response) {
		Upstream upstream = call.upstream();
		if (call.plan() == null || !upstream.properties().toolSearch().enabled()
				|| !response.statusCode().is2xxSuccessful() || !call.plan().payload().contains("initialize")) {
			return Mono.empty();
		}
		String sessionId = response.headers().getFirst(HeaderRules.MCP_SESSION_ID);
		if (sessionId == null || sessionId.isEmpty()) {
			return Mono.empty();
		}
		return store.open(new SessionKey(upstream.id(), sessionId), call.context().caller().id())
			.onErrorResume(error -> {
				log.warn("A session of '{}' could not be recorded: {}", upstream.id(), UpstreamFailures.describe(error));
				return response.releaseBody().then(Mono.error(RelayFailures.sessionStoreUnavailable(upstream.id())));
			});
	}

}
