package dev.mcprelay.api;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

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

	private final RequestHeaders received;

	private final Set<String> hidden;

	private RequestHeaders headers;

	/**
	 * Sized for the one or two notes a request usually carries (the relay leaves its configuration snapshot here): a
	 * table of 4 rather than the default 16, which grows as any map does when stages leave more.
	 */
	private final Map<String, Object> attributes = new ConcurrentHashMap<>(2);

	private final UpstreamHeaders upstreamHeaders = new UpstreamHeaders();

	private final Caller caller;

	private final String virtualServer;

	public CallContext(String server, RequestHeaders headers, Caller caller) {
		this(server, headers, caller, Set.of());
	}

	/**
	 * @param hidden inbound headers interceptors do not see (names compared case-insensitively): the caller's
	 * credential for the relay
	 */
	public CallContext(String server, RequestHeaders headers, Caller caller, Set<String> hidden) {
		this(server, headers, caller, hidden, null);
	}

	/**
	 * @param hidden inbound headers interceptors do not see (names compared case-insensitively): the caller's
	 * credential for the relay
	 * @param virtualServer the virtual server the message came through, or {@code null} when the client addressed
	 * {@code server} itself
	 */
	public CallContext(String server, RequestHeaders headers, Caller caller, Set<String> hidden, String virtualServer) {
		this.server = server;
		this.received = headers;
		this.caller = caller;
		this.hidden = lowerCased(hidden);
		this.virtualServer = virtualServer;
	}

	/**
	 * {@code names} in lower case, unmodifiable: the set itself when it is an unmodifiable set of lower-case names
	 * already (the relay's, made once per configuration: nothing is copied per request), else a copy.
	 */
	private static Set<String> lowerCased(Set<String> names) {
		if (names.isEmpty()) {
			return Set.of();
		}
		for (String name : names) {
			if (!name.equals(name.toLowerCase(Locale.ROOT))) {
				return names.stream().map(n -> n.toLowerCase(Locale.ROOT)).collect(Collectors.toUnmodifiableSet());
			}
		}
		return Set.copyOf(names);
	}

	/** A request from an anonymous caller (security mode {@code none}). */
	public CallContext(String server, RequestHeaders headers) {
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
	public RequestHeaders headers() {
		RequestHeaders view = headers;
		if (view == null) {
			view = hidden.isEmpty() || hidden.stream().noneMatch(received::containsHeader) ? received : new Visible();
			headers = view;
		}
		return view;
	}

	/** The client's {@code Mcp-Session-Id}, or {@code null} before {@code initialize} has been answered. */
	public String sessionId() {
		return received.getFirst("Mcp-Session-Id");
	}

	/** The received headers less the hidden ones. */
	private final class Visible implements RequestHeaders {

		@Override
		public String getFirst(String name) {
			return isHidden(name) ? null : received.getFirst(name);
		}

		@Override
		public List<String> get(String name) {
			return isHidden(name) ? List.of() : received.get(name);
		}

		@Override
		public Set<String> names() {
			return received.names().stream().filter(name -> !isHidden(name)).collect(Collectors.toUnmodifiableSet());
		}

		private boolean isHidden(String name) {
			return hidden.contains(name.toLowerCase(Locale.ROOT));
		}

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
