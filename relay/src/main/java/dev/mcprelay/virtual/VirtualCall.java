package dev.mcprelay.virtual;

import java.util.List;

import dev.mcprelay.http.RelayExchange;
import dev.mcprelay.proxy.WholeAnswerWriter;
import dev.mcprelay.route.VirtualMembers;

/**
 * One client request to a virtual server, once its session (if any) is known: what every part of the virtual relay
 * reads to know whom it serves.
 *
 * @param exchange the client's exchange
 * @param server the virtual server
 * @param access the members the caller may use, decided once by the front door
 * @param session the client's session, or {@code null} before {@code initialize} is answered
 * @param whole how the virtual server writes an answer it composed whole ({@link VirtualAnswers}): on the client's
 *        write clock, as a server's own answers are ({@code OpenStreams.clientTimed})
 */
record VirtualCall(RelayExchange exchange, VirtualServer server, VirtualMembers access, VirtualSession session,
		WholeAnswerWriter whole) {

	/** The members this caller may use, in configuration order. */
	List<String> usable() {
		return access.members();
	}

	/** The caller's id ({@code null}: anonymous). */
	String callerId() {
		return exchange.caller().id();
	}

	/** The session with {@code member}, {@link MemberSession#NONE} when the session has not joined it. */
	MemberSession memberSession(String member) {
		return session == null ? MemberSession.NONE : session.members().getOrDefault(member, MemberSession.NONE);
	}

	/** Whether a message can go to {@code member}: the session joined it, or there is no session to join. */
	boolean reachable(String member) {
		return session == null ? access.members().contains(member) : session.members().containsKey(member);
	}

	/** Whether the session joined {@code member}. */
	boolean joined(String member) {
		return session != null && session.members().containsKey(member);
	}

	/** The session's id, or {@code ""} for a request without one (MCP 2026-07-28). */
	String sessionId() {
		return session == null ? "" : session.id();
	}

	/** Whether the request belongs to no session: a 2026-07-28 client's, carrying what it needs in each request. */
	boolean stateless() {
		return session == null;
	}

	/** The terms the session is stored with ({@link VirtualSessionTerms}); {@code null} without a session. */
	String terms() {
		return session == null ? null : session.terms();
	}

	/** The tools this session's searches found; none without a session. */
	java.util.Set<String> exposedTools() {
		return session == null ? java.util.Set.of() : session.exposedTools();
	}

	/** The same request with {@code session}. */
	VirtualCall with(VirtualSession session) {
		return new VirtualCall(exchange, server, access, session, whole);
	}

	/**
	 * The same request, for the virtual server's own listing of a catalogue ({@link VirtualMembers#catalogue()}): the
	 * members answer their lists whole, and the virtual server decides what it answers of them per request.
	 */
	VirtualCall forCatalogue() {
		return new VirtualCall(exchange, server, access.forCatalogue(), session, whole);
	}

}
