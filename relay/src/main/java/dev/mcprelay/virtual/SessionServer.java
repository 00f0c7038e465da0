package dev.mcprelay.virtual;

/**
 * The virtual server a session's stream on this replica ({@link MergedSession}) runs on: the one it began on, until a
 * reload on this replica ends that version; then the version that replaced it, when the session carries on in it (its
 * stored terms are the successor's, or ones this replica never ran: {@link VirtualServerVersion#successorFor}), which
 * is where the session's requests run from then on. A session opened on another replica under newer settings, served
 * here on the older ones meanwhile, keeps its stream when this replica catches up; one of the settings replaced ends.
 * Moved only by the reload's own step ({@link #carryOn}), read by any thread.
 */
final class SessionServer {

	private final String terms;

	private volatile VirtualServer server;

	/** @param terms the session's stored terms ({@code null}: stored by an earlier relay, ends with its version) */
	SessionServer(VirtualServer server, String terms) {
		this.server = server;
		this.terms = terms;
	}

	/** The virtual server the session runs on now. */
	VirtualServer now() {
		return server;
	}

	/**
	 * Follows the reloads that ended the version the session runs on: whether it carries on (moved onto the version
	 * that replaced it), or ended with it. Nothing changes while the version runs.
	 */
	boolean carryOn() {
		VirtualServer next = runningFor(server, terms);
		if (next == null) {
			return false;
		}
		server = next;
		return true;
	}

	/**
	 * The virtual server a session stored with {@code terms} that ran on {@code server} runs on now: {@code server}
	 * while its version runs, else its successor's, and so on; {@code null} when a reload on this replica ended the
	 * session.
	 */
	static VirtualServer runningFor(VirtualServer server, String terms) {
		VirtualServer on = server;
		while (on != null && on.version().isEnded()) {
			on = on.version().successorFor(terms);
		}
		return on;
	}

}
