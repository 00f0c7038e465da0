package dev.mcprelay.session;

/**
 * A client's session with one server, as the relay keeps state for it: the server id and the session id the client
 * holds ({@code Mcp-Session-Id}). The id is a secret of the client's: it is never logged, and the Redis store keeps
 * only its SHA-256.
 */
public record SessionKey(String server, String id) {

	@Override
	public String toString() {
		return "SessionKey[" + server + ", <redacted>]";
	}

}
