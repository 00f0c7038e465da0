package dev.mcprelay.intercept;

import dev.mcprelay.security.Caller;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.springframework.http.HttpHeaders;

/**
 * The client HTTP request a message belongs to, as every interceptor view shows it.
 *
 * <p>{@link #headers()} are the client's headers as received (read-only): use them to tell tenants or users apart,
 * and never copy a credential from them into a message or a log. {@link #attributes()} is a scratch map shared by
 * every stage of one client request, so a request interceptor can leave a note for a response interceptor.
 */
public final class CallContext {

	private final String server;

	private final HttpHeaders headers;

	private final Map<String, Object> attributes = new ConcurrentHashMap<>();

	private final UpstreamHeaders upstreamHeaders = new UpstreamHeaders();

	private final Caller caller;

	public CallContext(String server, HttpHeaders headers, Caller caller) {
		this.server = server;
		this.headers = HttpHeaders.readOnlyHttpHeaders(headers);
		this.caller = caller;
	}

	/** A request from an anonymous caller (security mode {@code none}). */
	public CallContext(String server, HttpHeaders headers) {
		this(server, headers, Caller.ANONYMOUS);
	}

	/**
	 * Who sent the request, as the front door established it ({@code mcp-relay.security}): id, scopes and claims;
	 * {@link Caller#ANONYMOUS} in security mode {@code none}.
	 */
	public Caller caller() {
		return caller;
	}

	/** The id of the upstream server, as configured under {@code mcp-relay.servers}. */
	public String server() {
		return server;
	}

	/** The client's request headers, read-only. */
	public HttpHeaders headers() {
		return headers;
	}

	/** The client's {@code Mcp-Session-Id}, or {@code null} before {@code initialize} has been answered. */
	public String sessionId() {
		return headers.getFirst("Mcp-Session-Id");
	}

	/**
	 * The upstream request headers interceptors set or remove for this request; applied when it goes upstream, so
	 * only stages that run before that (user-request, per-method request, client notification) make a difference.
	 */
	public UpstreamHeaders upstreamHeaders() {
		return upstreamHeaders;
	}

	/** A map for notes shared between the stages of one client request. */
	public Map<String, Object> attributes() {
		return attributes;
	}

}
