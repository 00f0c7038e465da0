package dev.mcprelay.virtual;

import java.util.Optional;
import java.util.function.BiPredicate;
import java.util.function.Consumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

import dev.mcprelay.http.ReloadEnding;
import reactor.core.publisher.Mono;

/**
 * When a reload ends a virtual session on this replica: the one verdict that its merged GET stream, its calls
 * streaming through members and its members' streams here ({@link MergedStreams}) all follow, so that they end
 * together, each counted as the reload's ({@code mcp_relay_streams_ended_total}), or all carry on.
 *
 * <p>A reload on this replica that ends the version of the virtual server a session runs on ends the session
 * ({@code server_removed}, {@code session_ended}), unless it carries on in the version that replaced it by its stored
 * terms ({@link VirtualServerVersion#successorFor}: settings this replica never ran, which may be newer ones another
 * replica applied first). Such a session carries on only while the session store holds it live
 * ({@link VirtualSessions#live}): a replica that applied a reload first may have ended it meanwhile (its settings were
 * not the newest there), and it ends here too, with {@code session_ended}. The store is asked once per session and
 * ended version ({@link VirtualServerVersion#liveAfterEnd}), the answer shared by every stream of the session here;
 * a store that cannot answer leaves the session carrying on (logged): its client's next request asks it again.
 */
@Component
class VirtualSessionEnds {

	private static final Logger log = LoggerFactory.getLogger(VirtualSessionEnds.class);

	private final VirtualSessions sessions;

	VirtualSessionEnds(VirtualSessions sessions) {
		this.sessions = sessions;
	}

	/**
	 * Completes with why a reload ended {@code call}'s session on this replica ({@code server_removed},
	 * {@code session_ended}), or the request itself when it has no session (it ends with the version it runs on);
	 * never while the session carries on. Costs a subscription to the version's end while no reload ended it.
	 */
	Mono<String> endedFor(VirtualCall call) {
		return endedFor(call.server(), call.sessionId(), call.terms());
	}

	/** {@link #endedFor(VirtualCall)} for session {@code sessionId}, stored with {@code terms}, on {@code server}. */
	Mono<String> endedFor(VirtualServer server, String sessionId, String terms) {
		return next(server, sessionId, terms).flatMap(next -> next.isPresent()
				? endedFor(next.get(), sessionId, terms)
				: Mono.just(server.version().successorFor(terms) == null ? server.version().endedBy()
						: ReloadEnding.SESSION_ENDED));
	}

	/**
	 * Once a reload ended {@code server}'s version: the virtual server session {@code sessionId} (stored with
	 * {@code terms}) carries on in (whose version a later reload may have ended already), or empty when the session
	 * ended with that version, by its terms or as the store says.
	 */
	Mono<Optional<VirtualServer>> next(VirtualServer server, String sessionId, String terms) {
		VirtualServerVersion version = server.version();
		return version.ended().flatMap(reason -> {
			VirtualServer successor = version.successorFor(terms);
			if (successor == null) {
				return Mono.just(Optional.<VirtualServer>empty());
			}
			return version.liveAfterEnd(sessionId, () -> live(server.id(), sessionId))
				.map(live -> live ? Optional.of(successor) : Optional.<VirtualServer>empty());
		});
	}

	/**
	 * Follows session {@code sessionId} (stored with {@code terms}) from {@code on}, whose version a reload ended, as
	 * {@link #next} says, for what keeps it here (its streams, the member sessions joined here): {@code ended} runs
	 * when it ended ({@code true}: as the store says, another replica ended it; {@code false}: by its terms); else
	 * {@code moveOn} moves it from {@code on} to the successor ({@code false}: another step moved it already, and
	 * nothing more is done here), and once it runs on a version no reload ended, {@code carriedOn} runs with it (a
	 * successor a later reload ended meanwhile is followed on from).
	 */
	void follow(VirtualServer on, String sessionId, String terms, Consumer<Boolean> ended,
			BiPredicate<VirtualServer, VirtualServer> moveOn, Consumer<VirtualServer> carriedOn) {
		next(on, sessionId, terms).subscribe(next -> {
			if (next.isEmpty()) {
				ended.accept(on.version().successorFor(terms) != null);
			}
			else if (moveOn.test(on, next.get())) {
				if (next.get().version().isEnded()) {
					follow(next.get(), sessionId, terms, ended, moveOn, carriedOn);
				}
				else {
					carriedOn.accept(next.get());
				}
			}
		});
	}

	/** Whether the store holds session {@code sessionId} live; {@code true} when it cannot answer (logged). */
	private Mono<Boolean> live(String virtualId, String sessionId) {
		return sessions.live(virtualId, sessionId).onErrorResume(error -> {
			log.warn("Virtual server '{}' was changed by a configuration reload: the session store could not say "
					+ "whether a session of its new settings ended on another replica ({}); it carries on here until "
					+ "its client's next request", virtualId, error.getMessage());
			return Mono.just(true);
		});
	}

}
