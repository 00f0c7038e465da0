package dev.mcprelay.virtual;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Component;

import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.api.jsonrpc.JsonRpcErrorCodes;
import dev.mcprelay.api.jsonrpc.JsonRpcErrors;
import dev.mcprelay.config.ServerProperties;
import dev.mcprelay.http.RelayResponse;
import dev.mcprelay.proxy.OpenStreams;
import dev.mcprelay.proxy.SessionOrder;
import dev.mcprelay.session.SessionKey;
import io.netty.handler.codec.http.HttpHeaderNames;
import reactor.core.publisher.Mono;

/**
 * The server-to-client streams of virtual sessions (GET), one {@link MergedSession} per session on this replica:
 * every joined member's stream, merged, each event's id made in the merge's one serial step ({@link MemberIds}), so
 * that the client's {@code Last-Event-ID} resumes each member exactly where the client stopped.
 *
 * <p><b>Server requests delivered by construction.</b> The relay is every member's client: it opens each member's
 * stream as soon as the member has the client's {@code notifications/initialized} ({@link #hold}), before the client
 * gets the acknowledgement and can call anything, and holds what the members send until the client's GET takes it;
 * and a call goes to a member only once that member's stream here is open ({@link #opened}), so a member never has a
 * request for the client before it has a stream to send it on, whichever of the client's GET and call comes first.
 * That stream opens also when the client's attached GET may not read the member (its credential may not use it; a
 * call of another credential of the same caller that may): it is then refused on that GET ({@link GetReadGate}), and a
 * request the member sends on it is answered to the member at once with an error, counted
 * ({@link UndeliveredMessages#GET_MAY_NOT_READ}), never carried to that GET nor left unanswered (review 44p P-M2).
 *
 * <p><b>How long a call waits for a member's stream</b> depends on what the relay saw of the member (per member id,
 * on this replica): one seen to answer a GET with its headers alone ({@link #answeredAlone}) opens its stream as it
 * answers, so a call waits for it as long as the GET may take, the member's {@code timeouts.non-streaming}; one not
 * seen yet, at most {@link #STREAM_OPEN_WAIT}; one whose stream did not open within the wait is taken for a member
 * that sends a stream's headers only with its first event (the MCP Java SDK's servlet transport), and a call waits
 * for it at most {@link SessionOrder#GET_HEADERS_GRACE}, as for a direct client (logged), until it is seen to answer a
 * GET with its headers alone again. A call that went to a member before its stream was open, whose GET the member then
 * answered with its headers alone, reached a member with no stream, which dropped what it asked the client meanwhile:
 * it is counted undelivered ({@link UndeliveredMessages#STREAM_NOT_OPEN}) and logged, and if it is still waiting for
 * the member's answer (which may never come: the member waits for an answer to a request the client never got), the
 * client gets an error for it ({@link MemberHadNoStream}) and the member's exchange is cancelled.
 *
 * <p>A GET is answered 405 when every member is joined and none offers a stream, as a server without one answers.
 *
 * <p><b>Several replicas.</b> A client's GET on a replica that holds no stream of its session claims the session
 * ({@link StreamHandover}): the replica that held the members' streams lets them go ({@link #released}: what it held
 * for the client is counted and logged, {@link UndeliveredMessages#STREAM_MOVED}, a member's request answered to the
 * member with an error), and this one opens them from where the client's {@code Last-Event-ID} says it stopped (a
 * member that takes one stream per session refuses this one until the holder's is closed: it is opened again,
 * {@link StreamBackoff}).
 */
@Component
class MergedStreams {

	private static final Logger log = LoggerFactory.getLogger(MergedStreams.class);

	/** How long a call waits for the stream of a member not seen yet to open. */
	static final Duration STREAM_OPEN_WAIT = Duration.ofSeconds(5);

	/** What the relay saw of a member's GETs. */
	private enum Seen {
		/** A GET answered with its headers alone: the member's stream opens as it answers. */
		HEADERS_ALONE,
		/** A stream that did not open within a call's wait: taken for one that sends its headers with its first event. */
		LATE_HEADERS
	}

	private final Map<String, MergedSession> sessions = new ConcurrentHashMap<>();

	/** What the relay saw of each member's GETs (none: not seen yet). */
	private final Map<String, Seen> seen = new ConcurrentHashMap<>();

	private final MergedSession.Parts parts;

	private final MemberJoins joins;

	private final OpenStreams openStreams;

	private final StreamHandover handover;

	private final VirtualServers servers;

	private final ServedMembers served;

	/** When a reload ends a session here: its GET streams end then, and its streams here ({@link #reloads}). */
	private final VirtualSessionEnds ends;

	/** What reloads do to the sessions' streams here. */
	private final MergedSessionReloads reloads;

	MergedStreams(MemberCalls calls, AnswerRelay answers, UndeliveredMessages undelivered, MemberJoins joins,
			OpenStreams openStreams, StreamHandover handover, VirtualServers servers, ServedMembers served,
			MemberLists lists, VirtualSessionEnds ends) {
		this.parts = new MergedSession.Parts(calls, answers, undelivered, this);
		this.ends = ends;
		this.reloads = new MergedSessionReloads(sessions.values(), ends, lists);
		this.joins = joins;
		this.openStreams = openStreams;
		this.handover = handover;
		this.servers = servers;
		this.served = served;
		handover.onClaimed(this::released);
		servers.onRetired(reloads::retired);
		servers.onMembersChanged(reloads::regrouped);
	}

	/**
	 * The client of {@code call}'s session has said {@code notifications/initialized} to its members: their streams
	 * open now and are held for the client's GET (unless the session has one here already).
	 */
	void hold(VirtualCall call) {
		String key = key(call.server().id(), call.sessionId());
		MergedSession[] created = new MergedSession[1];
		sessions.computeIfAbsent(key, k -> created[0] = new MergedSession(parts, call.server(), call.session(),
				MemberOrigin.kept(call), Map.of()));
		if (created[0] != null) {
			joinedMembers(call).forEach(member -> created[0].open(member, call.memberSession(member)));
			reloads.endIfRetired(created[0]);
		}
	}

	/**
	 * The client's GET: the session's streams here, held since the join or since its last GET ended (the members that
	 * keep their events read again from where the client's {@code Last-Event-ID} says it stopped:
	 * {@link MergedSession#attach}), joined by the streams of the members the caller may use that the session joined
	 * and does not read here yet (a version it carried on in added them); or new streams from those positions when
	 * the session has none here. 405 when
	 * every member the caller may use is joined and offers no stream; a member not joined yet is not known to offer
	 * none (its stream joins this one when it joins).
	 */
	Mono<Void> open(VirtualCall call) {
		List<String> members = joinedMembers(call);
		Map<String, String> received = new LinkedHashMap<>(
				MemberIds.positions(call.exchange().requestHeaders().get("Last-Event-ID")));
		// a member's server stream, or a call's stream of a member (its call key)
		received.keySet().removeIf(key -> !members.contains(MemberIds.memberOf(key)));
		String key = key(call.server().id(), call.sessionId());
		boolean[] created = new boolean[1];
		MergedSession session = sessions.compute(key, (k, existing) -> {
			if (existing != null && existing.live()) {
				return existing;
			}
			created[0] = true;
			return new MergedSession(parts, call.server(), call.session(), MemberOrigin.kept(call), received);
		});
		if (created[0]) {
			// another replica may hold the members' streams (from the join, or an earlier GET): it lets them go
			handover.claim(key);
			members.forEach(member -> session.open(member, call.memberSession(member)));
			reloads.endIfRetired(session);
		}
		else {
			// member streams opened from now on go on this GET's settings, not the first GET's: a member whose server a
			// reload changed since is read again on its new settings (review 44f N2); one whose stream ended for good
			// on the old ones left the session, and is opened below
			session.reopened(MemberOrigin.kept(call));
			// what this GET may carry is judged on its own admission, not the session's first: a reload may have
			// withdrawn members from the caller since, whose streams end here (and are not opened again); a session
			// that carried on in a version that added members (review 44j F4) reads those of them it joined
			session.keepOnly(call.usable());
			members.forEach(member -> session.openIfUnread(member, call.memberSession(member)));
		}
		// a member not joined yet (down at the join) may well offer a stream once it joins: it joins this one then
		boolean awaited = call.usable().stream().anyMatch(member -> !call.joined(member));
		return session.servable(SessionOrder.GET_HEADERS_GRACE).flatMap(servable -> {
			if (!servable && !awaited) {
				session.end(UndeliveredMessages.CLIENT_GONE);
				return noStream(call);
			}
			RelayResponse response = call.exchange().response();
			call.exchange().record().forwarded(HttpStatus.OK.value());
			response.status(HttpStatus.OK);
			AnswerRelay.eventStreamHeaders(response.headers());
			response.headers().set("Mcp-Session-Id", call.session().id());
			// ends as shutdown begins, as a relayed GET does (the client reconnects elsewhere), and when a reload
			// withdraws the caller's access to what it reads, or removes or changes the virtual server: not when the
			// session carries on in the changed one (opened under its settings on a replica that applied them first,
			// and not ended there since: the one verdict its calls follow too, {@link VirtualSessionEnds});
			// what it reads is judged as the session reads it now, a member given back by a later reload joining it
			// ({@link MergedGetAccess}: reviews 44n N-H1, 44k K1), for as long as its body is read (44n N-M1)
			MergedGetAccess access = new MergedGetAccess(session, call);
			return parts.answers().writeEvents(response, openStreams.endingAtShutdown(
					access.governing(session.attach(call.exchange(), received)), call.exchange(), call.server().id(),
					access.withdrawn(), ends.endedFor(call)));
		});
	}

	/**
	 * {@code member} joined a virtual session (late, or again) in {@code memberSession}, by the request {@code by}: its
	 * stream joins the session's here, if there is one, and {@code notices} go to the client on the session's GET
	 * stream when one is attached that may read the member (or when {@code by} is the session's own stream, which found
	 * the member's session lost while one was). Otherwise the request that joined the member carries them before its
	 * answer, whatever the session's age: a client with no GET open never reads what is held for one, and a GET that
	 * may not read the member ({@link GetReadGate}) gets nothing of it, its notices neither (review 44p P-L2); when the
	 * session's own stream joined it then, the first request that shares that join (a call to the member that found its
	 * session lost too) carries them ({@link MemberJoins.Joined#noticesFor}).
	 *
	 * @return whether the session's stream here took the notices
	 */
	Mono<Boolean> joined(String virtualId, String sessionId, String member, MemberSession memberSession,
			List<ObjectNode> notices, Object by) {
		MergedSession session = sessions.get(key(virtualId, sessionId));
		if (session == null) {
			return Mono.just(false);
		}
		return session.opening(member, memberSession).map(carried -> {
			if (!carried) {
				return false;
			}
			if (by == session) {
				session.tell(notices);
				return true;
			}
			return session.tellIfAttached(notices);
		});
	}

	/**
	 * Completes once {@code member}'s stream of {@code call}'s session here is open, known absent, or failing, or the
	 * call waited for it as long as it may (at once when the session has no stream here): a call to the member goes
	 * after it. It completes with what says that the call went without a stream: a {@code Mono} that completes if the
	 * member is then found to have had none ({@link MemberStream#callWentAhead}), and never when the stream was there.
	 */
	Mono<Mono<Void>> opened(VirtualCall call, String member) {
		MergedSession session = call.stateless() ? null : sessions.get(key(call.server().id(), call.sessionId()));
		if (session == null || !call.joined(member) || !call.usable().contains(member)) {
			return streamOpen(call, session, member);
		}
		// a joined member whose stream this session does not read (its caller lost it and was given it back since
		// the client's GET opened, review 44k K1; or its stream ended on settings a reload changed) is opened first,
		// as one joined late is: the call never goes to a member with no stream here while the session has one; but
		// not for a call whose caller a reload took the member from since its admission (review 44o O-H1): its member
		// exchange refuses it, and nothing opens on its behalf. An attached GET reads it only if its own access may;
		// else it is refused there, what the member asks the client answered to the member (review 44p P-M2).
		return call.exchange().accessWithdrawnNowFrom(member).flatMap(lost -> {
			if (!lost) {
				session.openIfUnread(member, call.memberSession(member));
			}
			return streamOpen(call, session, member);
		});
	}

	/** {@link #opened}, once the call's member stream is opened if it may be. */
	private Mono<Mono<Void>> streamOpen(VirtualCall call, MergedSession session, String member) {
		MemberStream stream = session == null ? null : session.member(member);
		if (stream == null) {
			return Mono.just(Mono.never());
		}
		Seen before = seen.get(member);
		Duration wait = before == null ? STREAM_OPEN_WAIT
				: before == Seen.LATE_HEADERS ? SessionOrder.GET_HEADERS_GRACE : getBound(call, member);
		return stream.settled().thenReturn(Mono.<Void>never()).timeout(wait, Mono.fromCallable(() -> {
			if (before != Seen.LATE_HEADERS && seen.put(member, Seen.LATE_HEADERS) != Seen.LATE_HEADERS) {
				log.info("Virtual server '{}': member '{}' did not answer its GET stream within {}; it is taken for a "
						+ "server that sends a stream's headers only with its first event, and calls to it wait at "
						+ "most {} for its stream from now on", call.server().id(), member, wait,
						SessionOrder.GET_HEADERS_GRACE);
			}
			return stream.callWentAhead();
		}));
	}

	/**
	 * Whether the relay is shutting down: a member's GET that fails then was ended by the relay itself (answered 503
	 * {@code relay_shutting_down}), which tells nothing of how the member opens its stream.
	 */
	boolean shuttingDown() {
		return !openStreams.isRunning();
	}

	/** Whether the configuration current now still has a member of a session here, and on which settings. */
	ServedMembers served() {
		return served;
	}

	/**
	 * {@code member} answered the GET of {@code session}'s stream with its headers alone (no event came with them),
	 * while {@code callsAhead} calls went to it without waiting any longer: it opens its stream as it answers (calls
	 * wait for it as long as its GET may take from now on, logged if it was taken for one that does not), so it had no
	 * stream when those calls came, and what it asked the client meanwhile was dropped at the member: counted
	 * undelivered and logged.
	 */
	void answeredAlone(MergedSession session, String member, int callsAhead) {
		if (seen.put(member, Seen.HEADERS_ALONE) == Seen.LATE_HEADERS) {
			log.info("Virtual server '{}': member '{}' answered its GET stream with its headers alone; calls to it wait "
					+ "for its stream again, as long as its GET may take", session.virtualId(), member);
		}
		if (callsAhead > 0) {
			session.parts().undelivered().callsAhead(session.virtualId(), member, callsAhead);
		}
	}

	/** How long {@code member}'s GET may take to be answered: its {@code timeouts.non-streaming}. */
	private static Duration getBound(VirtualCall call, String member) {
		ServerProperties server = call.exchange().configuration().properties().servers().get(member);
		return server == null ? STREAM_OPEN_WAIT : server.timeouts().nonStreaming();
	}

	/** Ends {@code call}'s session's stream here, if any (the session ended). */
	void end(String virtualId, String sessionId) {
		MergedSession session = sessions.get(key(virtualId, sessionId));
		if (session != null) {
			session.end(UndeliveredMessages.SESSION_ENDED);
		}
	}

	/**
	 * Another replica took the client's GET of the session {@code key} names ({@link StreamHandover#digest}): the
	 * session's streams here end, and what they held for the client is counted ({@link UndeliveredMessages#STREAM_MOVED}).
	 */
	void released(String key) {
		MergedSession session = sessions.get(key);
		if (session != null) {
			log.debug("Virtual server '{}': the client's GET stream went to another replica; the members' streams here "
					+ "are let go", session.virtualId());
			session.end(UndeliveredMessages.STREAM_MOVED);
		}
	}

	/** {@code session} ended: it is forgotten. */
	void ended(MergedSession session) {
		sessions.remove(key(session.virtualId(), session.sessionId()), session);
	}

	/**
	 * A member's stream found that the member no longer knows its session: the member is joined again, on the settings
	 * current now, never on those the session's stream began with (a reload may have changed its server since: its old
	 * address and secret make no new session), which tells the client and opens its new stream here
	 * ({@link MemberJoins}); but for a member whose server a reload changed, whose stream this session opens on neither
	 * settings ({@link ServedMembers#stillServes}): the client's next GET opens it. A member the current configuration
	 * no longer has in the virtual server is not joined again.
	 */
	void memberSessionLost(MergedSession session, String member, MemberSession lost) {
		if (!served.stillHas(session, member)) {
			log.info("Virtual server '{}': member '{}' no longer knows its session and is no longer one of its members; "
					+ "it is not joined again", session.virtualId(), member);
			return;
		}
		MemberOrigin now = session.origin().on(served.current());
		joins.join(session.server(), session.virtualSession(), now, member, lost, session)
			.subscribe(null, error -> log.info("Virtual server '{}': member '{}' no longer knows its session and was not "
					+ "joined again: {}", session.virtualId(), member, error.getMessage()));
	}

	/**
	 * The sessions with a merged GET stream here, by virtual server and id: the ones {@link OrphanedMemberSessions} asks
	 * the store about at each of its ticks. A call streaming through a member is not among them (review 44s S-L1).
	 */
	List<SessionKey> streaming() {
		return sessions.values().stream().map(session -> new SessionKey(session.virtualId(), session.sessionId())).toList();
	}

	/** The sessions with a stream here; for tests. */
	int open() {
		return sessions.size();
	}

	private static List<String> joinedMembers(VirtualCall call) {
		return call.usable().stream().filter(call::joined).toList();
	}

	/** A session's key here: what the replicas name it by ({@link StreamHandover#digest}), never its id. */
	private static String key(String virtualId, String sessionId) {
		return StreamHandover.digest(virtualId, sessionId);
	}

	/** 405, as a server that offers no stream answers a GET: no member of the session offers one. */
	private static Mono<Void> noStream(VirtualCall call) {
		RelayResponse response = call.exchange().response();
		call.exchange().record().failed(false, "no_stream");
		byte[] body = JsonRpcErrors.body(List.of(), false, JsonRpcErrorCodes.INVALID_REQUEST,
				"This virtual server offers no server-to-client stream: none of its members does. Use POST.",
				Map.of("reason", "no_stream"));
		response.status(HttpStatus.METHOD_NOT_ALLOWED);
		response.headers().set(HttpHeaderNames.ALLOW, "POST, DELETE");
		response.headers().set(HttpHeaderNames.CONTENT_TYPE, "application/json");
		response.headers().set(HttpHeaderNames.CONTENT_LENGTH, body.length);
		response.headers().set("Mcp-Session-Id", call.session().id());
		return response.write(Mono.just(response.bufferFactory().wrap(body)));
	}

}
