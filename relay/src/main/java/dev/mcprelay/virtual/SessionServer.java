package dev.mcprelay.virtual;

/**
 * The virtual server a session's stream on this replica ({@link MergedSession}) runs on: the one it began on, until a
 * reload on this replica ends that version; then the version that replaced it, when the session carries on in it (its
 * stored terms are the successor's, or ones this replica never ran: {@link VirtualServerVersion#successorFor}, and the
 * store holds it live: {@link VirtualSessionEnds}), which is where the session's requests run from then on. A session
 * opened on another replica under newer settings, served here on the older ones meanwhile, keeps its stream when this
 * replica catches up (unless that replica ended it since); one of the settings replaced ends.
 * Moved only by the reload's own step ({@link #moveOn}), read by any thread.
 */
final class SessionServer {

	private volatile VirtualServer server;

	SessionServer(VirtualServer server) {
		this.server = server;
	}

	/** The virtual server the session runs on now. */
	VirtualServer now() {
		return server;
	}

	/**
	 * Moves the session on from {@code from}, whose version a reload ended, to {@code to}, the virtual server it
	 * carries on in ({@link VirtualSessionEnds#next}): whether it was on {@code from} (else another step moved it).
	 */
	synchronized boolean moveOn(VirtualServer from, VirtualServer to) {
		if (server != from) {
			return false;
		}
		server = to;
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
