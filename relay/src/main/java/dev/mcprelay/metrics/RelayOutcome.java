package dev.mcprelay.metrics;

/** How a client request ended, as the {@code outcome} tag and the access log report it. */
public enum RelayOutcome {

	/** The upstream answered, whatever its status. */
	FORWARDED,
	/** An interceptor refused the request (policy); nothing reached the upstream. */
	REJECTED,
	/**
	 * The client's request was wrong or not allowed before any policy ran: an unknown server or path, a malformed
	 * body, a disallowed origin, a missing required header, a method the endpoint does not take. Nothing reached the
	 * upstream, and the upstream is not to blame.
	 */
	CLIENT_ERROR,
	/** An interceptor answered the request; nothing reached the upstream. */
	RESPONDED,
	/** The upstream could not be reached, timed out, misbehaved, or its stream broke. */
	FAILED,
	/**
	 * The relay shut down before the answer came: the request was cut at the end of
	 * {@code shutdown.stream-grace-period} and answered with an error ({@code relay_shutting_down}) that the client
	 * may send again, to another replica. The relay's doing, and nobody's failure: not counted as {@link #FAILED}.
	 */
	SHUTDOWN,
	/**
	 * A configuration reload ended the request before its answer came: the caller's access was withdrawn
	 * ({@code access_withdrawn}), its server removed ({@code server_removed}) or its virtual session ended
	 * ({@code session_ended}); answered with an error that names the reason. The relay's doing, on the operator's
	 * word, and nobody's failure: counted neither as {@link #FAILED} nor as {@link #SHUTDOWN}, so that neither a
	 * failure alert nor a dashboard of rolling updates counts revocations.
	 */
	RELOADED,
	/**
	 * The relay refused the request for want of memory: the bodies it holds took its budget
	 * ({@code mcp-relay.max-buffered-bodies}, or the caller's share of it), and the request was answered
	 * {@code relay_overloaded} before anything was forwarded. The relay's doing, not the upstream's: not counted as
	 * {@link #FAILED}.
	 */
	OVERLOADED;

	private final String tag = name().toLowerCase(java.util.Locale.ROOT);

	/** The tag value: the name in lower case, made once. */
	public String tag() {
		return tag;
	}

}
