package dev.mcprelay.upstream;

/**
 * The relay could not get an access token for an upstream: the authorization server refused ({@link #refused()}) or
 * could not be reached in time. The message names neither the client secret nor any token.
 */
public final class UpstreamAuthException extends RuntimeException {

	private final String server;

	private final boolean refused;

	UpstreamAuthException(String server, boolean refused, String message) {
		super(message, null, false, false);
		this.server = server;
		this.refused = refused;
	}

	public String server() {
		return server;
	}

	/** Whether the authorization server answered with a refusal (rather than not at all, or too late). */
	public boolean refused() {
		return refused;
	}

}
