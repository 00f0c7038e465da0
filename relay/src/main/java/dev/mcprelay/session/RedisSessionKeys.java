package dev.mcprelay.session;

import java.util.List;

import dev.mcprelay.Sha256;

/**
 * Where {@link RedisSessionStore} keeps what, so that a Redis Cluster accepts every command it sends (DESIGN section
 * 14). A session's keys share one hash slot: the key {@value #PREFIX}{@code {<server>:<sha256 of the id>}} (its caller)
 * and the same key with {@code :tools} and {@code :members}, all hashed by the part in braces, so one command may
 * touch them together and a session's state is on one master. A caller's count of sessions is one key,
 * {@value #CALLERS}{@code <sha256 of the caller's id>}, and every script that touches it touches nothing else. The
 * ids are kept as their hashes only: the keys name a server, never a session id or a caller.
 *
 * <p>Relays before the hash tags kept a session as {@code mcp-relay:session:<server>:<sha256>}: those sessions are
 * not found under the new keys (the client is answered 404 and opens a new session) and expire after the idle
 * timeout; a caller's count kept its key and holds both forms while both exist.
 */
final class RedisSessionKeys {

	static final String PREFIX = "mcp-relay:session:";

	/** The sorted set of a caller's sessions: this prefix and the SHA-256 of the caller's id. */
	static final String CALLERS = "mcp-relay:caller-sessions:";

	private static final String TOOLS = ":tools";

	private static final String MEMBERS = ":members";

	private RedisSessionKeys() {
	}

	/** The key of {@code key}'s session, which holds its caller (empty for none). */
	static String session(SessionKey key) {
		return PREFIX + "{" + key.server() + ":" + Sha256.hex(key.id()) + "}";
	}

	/** The set of tools the session's searches exposed. */
	static String tools(String session) {
		return session + TOOLS;
	}

	/** The hash of what a virtual server's session keeps per member. */
	static String members(String session) {
		return session + MEMBERS;
	}

	/** Every key of the session; one hash slot for a session of these keys, whatever slots an older one's are in. */
	static List<String> all(String session) {
		return List.of(session, tools(session), members(session));
	}

	/** The sorted set that counts {@code callerId}'s sessions. */
	static String callers(String callerId) {
		return CALLERS + Sha256.hex(callerId);
	}

	/**
	 * The server of a stored session key, of this form or the older one without braces; the id is kept only as its
	 * hash, so the key says no more.
	 */
	static SessionKey sessionKeyOf(String stored) {
		String rest = stored.substring(PREFIX.length());
		if (rest.startsWith("{")) {
			rest = rest.substring(1);
		}
		return new SessionKey(rest.substring(0, rest.indexOf(':')), "<ended>");
	}

}
