package dev.mcprelay.transport;

/**
 * A failure of a transport's own, before or instead of an upstream response: the relay turns it into a JSON-RPC
 * error for each request waiting (HTTP status and JSON-RPC code by {@link Kind}). Its message is shown to the client:
 * it names what happened, never a URL, header or credential.
 */
public final class UpstreamTransportException extends RuntimeException {

	/** What went wrong, which decides the client's HTTP status. */
	public enum Kind {

		/** The session the client named does not exist here (ended, expired, or opened by another replica): 404. */
		UNKNOWN_SESSION,

		/** The upstream could not be reached, or failed the exchange: 502. */
		UPSTREAM_FAILED,

		/** The upstream did not answer in time: 504. */
		UPSTREAM_TIMEOUT,

		/** The relay holds as many upstream sessions as it may: 503. */
		TOO_MANY_SESSIONS,

		/** The request does not fit the session (a second GET stream): 409. */
		CONFLICT,

		/**
		 * The relay held as much for the client as it may (a bounded queue of messages waiting for it was full), so the
		 * request's answer is lost: 503.
		 */
		HELD_MESSAGES_FULL

	}

	private final Kind kind;

	private final String reason;

	/**
	 * @param reason a short snake_case reason for logs and metrics
	 * @param message what the client is told
	 */
	public UpstreamTransportException(Kind kind, String reason, String message) {
		super(message, null, false, false);
		this.kind = kind;
		this.reason = reason;
	}

	public Kind kind() {
		return kind;
	}

	public String reason() {
		return reason;
	}

}
