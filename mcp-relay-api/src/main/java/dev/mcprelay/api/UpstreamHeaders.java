package dev.mcprelay.api;

import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.BiConsumer;

/**
 * The upstream request headers an interceptor sets or removes for one client request (seed 000's
 * {@code prepareUpstreamHeaders}), on every method: POST, GET and DELETE. Any stage that runs before the request goes
 * upstream may use it ({@code context().upstreamHeaders()}); the relay applies the changes last, over the client's
 * forwarded headers, the configured {@code headers} and {@code authorization}. So an interceptor may, for example,
 * put a per-user token in {@code Authorization} or drop a header the client sent.
 *
 * <p>The headers the relay manages itself (the session, the protocol version, {@code Mcp-Method}/{@code Mcp-Name},
 * {@code Last-Event-ID}, {@code Accept}, {@code Content-Type}, and hop-by-hop and framing headers) cannot be touched:
 * {@link #set} and {@link #remove} throw {@link IllegalArgumentException} for them, which the chain reports as that
 * interceptor's failure (-32603). Used from one request's serialized signals only.
 */
public final class UpstreamHeaders {

	/** Headers the relay owns: neither the configuration nor an interceptor may set or remove them. */
	public static final Set<String> MANAGED = Set.of("host", "content-length", "transfer-encoding", "connection",
			"keep-alive", "upgrade", "te", "trailer", "proxy-connection", "mcp-session-id", "mcp-protocol-version",
			"mcp-method", "mcp-name", "last-event-id", "content-type", "accept");

	/**
	 * Name to value; a {@code null} value removes the header. Made on the first change: most requests have none, and
	 * cost no map.
	 */
	private Map<String, String> changes;

	UpstreamHeaders() {
	}

	/** Whether the relay manages the header {@code name} itself. */
	public static boolean isManaged(String name) {
		return MANAGED.contains(name.toLowerCase(Locale.ROOT));
	}

	/** Sends {@code name: value} upstream for this request, replacing any value it would have had. */
	public void set(String name, String value) {
		requireUnmanaged(name);
		if (value == null) {
			throw new IllegalArgumentException("A header value cannot be null; use remove(\"" + name + "\")");
		}
		changes().put(name, value);
	}

	/** Sends no {@code name} header upstream for this request. */
	public void remove(String name) {
		requireUnmanaged(name);
		changes().put(name, null);
	}

	/**
	 * Hands each change to {@code change}, in no particular order: the header's name and its value, or {@code null}
	 * for a header to remove. The relay applies them this way; a test reads them this way.
	 */
	public void forEachChange(BiConsumer<String, String> change) {
		if (changes != null) {
			changes.forEach(change);
		}
	}

	/** Whether no header was set or removed. */
	public boolean isEmpty() {
		return changes == null || changes.isEmpty();
	}

	private Map<String, String> changes() {
		if (changes == null) {
			changes = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
		}
		return changes;
	}

	private static void requireUnmanaged(String name) {
		if (name == null || isManaged(name)) {
			throw new IllegalArgumentException("The relay manages the " + name + " header itself; an interceptor "
					+ "cannot set or remove it");
		}
	}

}
