package dev.mcprelay.intercept;

import dev.mcprelay.security.Caller;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.springframework.http.HttpHeaders;

/**
 * The client HTTP request a message belongs to, as every interceptor view shows it.
 *
 * <p>{@link #headers()} are the client's headers as received (read-only), without the credential the caller
 * presented to the relay ({@code Authorization}, {@code X-Api-Key}) in a secured mode, unless the server's configuration
 * copies that header by name: use them to tell tenants or users apart ({@link #caller()} says who is asking). {@link #attributes()} is a scratch map shared by
 * every stage of one client request, so a request interceptor can leave a note for a response interceptor.
 */
public final class CallContext {

	private final String server;

	private final HttpHeaders received;

	private final Set<String> hidden;

	private HttpHeaders headers;

	private final Map<String, Object> attributes = new ConcurrentHashMap<>();

	private final UpstreamHeaders upstreamHeaders = new UpstreamHeaders();

	private final Caller caller;

	private final String virtualServer;

	public CallContext(String server, HttpHeaders headers, Caller caller) {
		this(server, headers, caller, Set.of());
	}

	/**
	 * @param hidden inbound headers interceptors do not see (names compared case-insensitively): the caller's
	 * credential for the relay
	 */
	public CallContext(String server, HttpHeaders headers, Caller caller, Set<String> hidden) {
		this(server, headers, caller, hidden, null);
	}

	/**
	 * @param hidden inbound headers interceptors do not see (names compared case-insensitively): the caller's
	 * credential for the relay
	 * @param virtualServer the virtual server the message came through, or {@code null} when the client addressed
	 * {@code server} itself
	 */
	public CallContext(String server, HttpHeaders headers, Caller caller, Set<String> hidden, String virtualServer) {
		this.server = server;
		this.received = headers;
		this.caller = caller;
		this.hidden = hidden;
		this.virtualServer = virtualServer;
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

	/**
	 * The id of the upstream server, as configured under {@code mcp-relay.servers}: for a message that came through a
	 * virtual server, the member it goes to (or came from).
	 */
	public String server() {
		return server;
	}

	/**
	 * The virtual server ({@code mcp-relay.virtual-servers}) the client addressed, whose member {@link #server()} is;
	 * {@code null} when the client addressed the server itself.
	 */
	public String virtualServer() {
		return virtualServer;
	}

	/** The client's request headers, read-only, less the caller's credential for the relay (see the class comment). */
	public HttpHeaders headers() {
		HttpHeaders view = headers;
		if (view == null) {
			view = HttpHeaders.readOnlyHttpHeaders(withoutHidden());
			headers = view;
		}
		return view;
	}

	/** The client's {@code Mcp-Session-Id}, or {@code null} before {@code initialize} has been answered. */
	public String sessionId() {
		return received.getFirst("Mcp-Session-Id");
	}

	/** The received headers, copied without the hidden ones when one is there; as they are otherwise. */
	private HttpHeaders withoutHidden() {
		if (hidden.isEmpty() || hidden.stream().noneMatch(received::containsHeader)) {
			return received;
		}
		HttpHeaders visible = new HttpHeaders();
		received.forEach((name, values) -> {
			if (!hidden.contains(name)) {
				visible.addAll(name, values);
			}
		});
		return visible;
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
