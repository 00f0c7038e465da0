package dev.mcprelay.virtual;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Component;

import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.proxy.RelayAnswers;
import dev.mcprelay.proxy.RelayFailures;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * How a virtual session begins and ends: {@code initialize} joins every member the caller may use at once
 * ({@link MemberJoin}) and opens the relay session with those that answered (none: 502; a store that cannot keep it:
 * the joined member sessions are ended again and 503); DELETE ends every member session, then the relay session.
 */
@Component
class VirtualSessionLifecycle {

	private static final Logger log = LoggerFactory.getLogger(VirtualSessionLifecycle.class);

	private final MemberJoin join;

	private final MemberCalls calls;

	private final VirtualSessions sessions;

	private final MemberAvailability availability;

	private final MergedStreams streams;

	private final OrphanedMemberSessions orphans;

	VirtualSessionLifecycle(MemberJoin join, MemberCalls calls, VirtualSessions sessions,
			MemberAvailability availability, MergedStreams streams, OrphanedMemberSessions orphans) {
		this.join = join;
		this.calls = calls;
		this.sessions = sessions;
		this.availability = availability;
		this.streams = streams;
		this.orphans = orphans;
	}

	/** {@code initialize}: joins every usable member at once and opens the session with those that answered. */
	Mono<Void> open(VirtualCall call, ObjectNode initialize, String version) {
		String virtualId = call.server().id();
		List<ObjectNode> warnings = new ArrayList<>();
		return Flux.fromIterable(call.usable())
			.flatMapSequential(member -> join.initialize(call, member, initialize)
				.onErrorResume(MemberUnavailable.class, failure -> {
					synchronized (warnings) {
						warnings.add(availability.unavailable(virtualId, failure));
					}
					return Mono.empty();
				}), Math.max(1, call.usable().size()))
			.collectList()
			.flatMap(joined -> {
				if (joined.isEmpty()) {
					return Mono.error(RelayFailures.noMemberAvailable(virtualId));
				}
				String sessionId = VirtualSessions.mint();
				Map<String, MemberSession> members = new java.util.LinkedHashMap<>();
				joined.forEach(member -> members.put(member.member(), member.session()));
				ObjectNode result = InitializeMerge.result(virtualId, version,
						initialize.path("params").path("protocolVersion").asText(null), joined);
				return sessions.open(virtualId, sessionId, call.callerId(), initialize, members,
						call.server().terms(), MemberLists.of(result))
					// A session the store could not keep is ended with every member, not left open behind them.
					.onErrorResume(failure -> endMembers(call, members).then(Mono.error(failure)))
					.then(Mono.defer(() -> {
						orphans.opened(call, sessionId, members);
						call.exchange().record().forwarded(HttpStatus.OK.value());
						HttpHeaders headers = new HttpHeaders();
						headers.set("Mcp-Session-Id", sessionId);
						return RelayAnswers.answer(call.exchange().response(), HttpStatus.OK,
								List.of(VirtualAnswers.result(initialize.get("id"), result)), false, headers, call.whole());
					}));
			});
	}

	/** DELETE: ends the session's stream here, every member session, then the relay session. */
	Mono<Void> end(VirtualCall call) {
		streams.end(call.server().id(), call.session().id());
		orphans.deleted(call.server().id(), call.session().id());
		return endMembers(call, call.session().members())
			.then(sessions.end(call.server().id(), call.session().id(), call.callerId()))
			.then(Mono.defer(() -> {
				call.exchange().response().status(HttpStatus.OK);
				call.exchange().record().forwarded(HttpStatus.OK.value());
				return call.exchange().response().complete();
			}));
	}

	/**
	 * {@code call}'s session, unless the virtual server changed since it was opened ({@link VirtualSessionTerms}: this
	 * replica replaced the version whose settings the session was opened under). Such a session ends here as on
	 * the replica that joined its members (which may have stopped, or not heard of it): its stream here, a DELETE to
	 * each member session, the session marked ended in the store ({@link VirtualSessions#retire}: its next request is
	 * answered alike on every replica); the request is answered 404 {@code session_ended}, so that its client
	 * initializes again, on the new settings.
	 */
	Mono<VirtualCall> holding(VirtualCall call) {
		if (VirtualSessionTerms.hold(call.session().terms(), call.server())) {
			return Mono.just(call);
		}
		log.info("Virtual server '{}': a session opened under other settings of it ends; its member sessions are sent "
				+ "DELETE", call.server().id());
		streams.end(call.server().id(), call.session().id());
		orphans.deleted(call.server().id(), call.session().id());
		return endMembers(call, call.session().members())
			.then(sessions.retire(call.server().id(), call.session().id()).onErrorResume(error -> Mono.empty()))
			.then(Mono.error(() -> RelayFailures.sessionEnded(call.server().id())));
	}

	/** Ends the sessions with {@code members} (DELETE to each; what they answer does not matter). */
	private Mono<Void> endMembers(VirtualCall call, Map<String, MemberSession> members) {
		return Flux.fromIterable(members.entrySet())
			.flatMap(member -> calls
				.send(call, member.getKey(), HttpMethod.DELETE, member.getValue(), null, null)
				.flatMap(MemberAnswer::discard)
				.onErrorResume(error -> Mono.empty()))
			.then();
	}

}
