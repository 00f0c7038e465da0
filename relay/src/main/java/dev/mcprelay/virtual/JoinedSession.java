package dev.mcprelay.virtual;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One session whose members this replica joined, as {@link OrphanedMemberSessions} keeps it: what it needs to send
 * each member session its DELETE once the session ends without its client's (expired, evicted, ended elsewhere or by a
 * reload), and the virtual server it runs on here.
 */
final class JoinedSession {

	final String virtualId;

	final String sessionId;

	/**
	 * The virtual server the session runs on here: it ends with its version, unless it carries on in the one that
	 * replaced it ({@link #moveOn}).
	 */
	volatile VirtualServer server;

	/** The terms the session is stored with ({@link VirtualSessionTerms}). */
	final String terms;

	final MemberOrigin origin;

	/** Guarded by {@code this}. */
	final Map<String, MemberSession> members;

	/**
	 * The origin each member was joined with, when not {@link #origin} (joined late, or again). Guarded by
	 * {@code this}.
	 */
	final Map<String, MemberOrigin> joinedWith = new LinkedHashMap<>();

	volatile long lastUse = System.nanoTime();

	JoinedSession(VirtualServer server, String sessionId, String terms, MemberOrigin origin,
			Map<String, MemberSession> members) {
		this.virtualId = server.id();
		this.server = server;
		this.terms = terms;
		this.sessionId = sessionId;
		this.origin = origin;
		this.members = new LinkedHashMap<>(members);
	}

	/** Moves the session on from {@code from} to {@code to}: whether it ran on {@code from} (else it moved). */
	synchronized boolean moveOn(VirtualServer from, VirtualServer to) {
		if (server != from) {
			return false;
		}
		server = to;
		return true;
	}

}
