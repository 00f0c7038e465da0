package dev.mcprelay.metrics;

/** How a client request ended, as the {@code outcome} tag and the access log report it. */
public enum RelayOutcome {

	/** The upstream answered, whatever its status. */
	FORWARDED,
	/** An interceptor refused the request, or the relay refused it as invalid; nothing reached the upstream. */
	REJECTED,
	/** An interceptor answered the request; nothing reached the upstream. */
	RESPONDED,
	/** The upstream could not be reached, timed out, misbehaved, or its stream broke. */
	FAILED;

	/** The tag value. */
	public String tag() {
		return name().toLowerCase();
	}

}
