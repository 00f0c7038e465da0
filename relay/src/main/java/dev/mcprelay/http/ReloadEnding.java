package dev.mcprelay.http;

/**
 * What a configuration reload ended of an exchange beyond its own server: the server (or virtual server) the ending
 * names, which its answer and {@code mcp_relay_streams_ended_total} name, and why ({@link #SERVER_REMOVED},
 * {@link #SESSION_ENDED}, {@link #ACCESS_WITHDRAWN}). See {@link RelayExchange#endedByReload()}.
 *
 * @param server the id the ending is answered and counted under
 * @param reason why, as the answer's {@code error.data.reason} and the meter's {@code reason} say it
 */
public record ReloadEnding(String server, String reason) {

	/** A reload removed the server. */
	public static final String SERVER_REMOVED = "server_removed";

	/** A reload withdrew the caller's access to the server. */
	public static final String ACCESS_WITHDRAWN = "access_withdrawn";

	/** A reload changed the server in a way that ends its sessions (a legacy SSE server's, a virtual server's). */
	public static final String SESSION_ENDED = "session_ended";

}
