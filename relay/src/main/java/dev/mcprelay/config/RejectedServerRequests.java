package dev.mcprelay.config;

/**
 * What the client sees when an interceptor rejects a server-to-client request (sampling, elicitation, roots):
 * mcp-relay.servers.<id>.rejected-server-requests. The server always gets the rejection as the error answering its
 * request.
 */
public enum RejectedServerRequests {

	/** Nothing: the request simply never reaches the client. */
	SILENT,

	/** A {@code notifications/message} at level {@code warning} naming the rejected method and the reason. */
	NOTIFY

}
