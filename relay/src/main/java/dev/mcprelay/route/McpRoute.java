package dev.mcprelay.route;

/**
 * Where one request goes: the routing decision, made once per request by {@link McpRouting} from the path as it
 * arrived, and the only thing the front door, CORS, rate limits, interceptors, metrics, the access log and the relay
 * read to know which server a request is for. Nothing else parses the path.
 *
 * @param kind what the path names
 * @param target the configured server id for {@link Kind#SERVER}, the virtual server's for {@link Kind#VIRTUAL}; the
 * decoded id asked for, for
 * {@link Kind#UNKNOWN_SERVER}; else {@code null}
 * @param problem what is wrong with an {@link Kind#AMBIGUOUS_PATH}, for the client; else {@code null}
 */
public record McpRoute(Kind kind, String target, String problem) {

	/** The path is not the MCP endpoint's: the relay leaves it to the rest of the application. */
	public static final McpRoute NOT_MCP = new McpRoute(Kind.NOT_MCP, null, null);

	/** {@code /mcp} while no default server is configured. */
	public static final McpRoute NO_DEFAULT_SERVER = new McpRoute(Kind.NO_DEFAULT_SERVER, null, null);

	/** What a path can name. */
	public enum Kind {

		/** A configured server, by the id in the path or as the default server of {@code /mcp}. */
		SERVER,

		/** A configured virtual server (DESIGN section 11), by the id in the path or as the default of {@code /mcp}. */
		VIRTUAL,

		/** An MCP endpoint path whose id names no configured server. */
		UNKNOWN_SERVER,

		/** {@code /mcp}, and no default server. */
		NO_DEFAULT_SERVER,

		/** A path that only a lenient reading makes an MCP endpoint path: refused, never relayed. */
		AMBIGUOUS_PATH,

		/** Not an MCP endpoint path. */
		NOT_MCP

	}

	/** Whether the relay answers the request: an MCP endpoint path, known server or not. */
	public boolean isEndpoint() {
		return kind == Kind.SERVER || kind == Kind.VIRTUAL || kind == Kind.UNKNOWN_SERVER
				|| kind == Kind.NO_DEFAULT_SERVER;
	}

	/** Whether the relay observes and logs the request: every path but {@link Kind#NOT_MCP}. */
	public boolean isObserved() {
		return kind != Kind.NOT_MCP;
	}

	/** The configured server the request is for, or {@code null} (a virtual server is none: {@link #virtualServer()}). */
	public String server() {
		return kind == Kind.SERVER ? target : null;
	}

	/** The configured virtual server the request is for, or {@code null}. */
	public String virtualServer() {
		return kind == Kind.VIRTUAL ? target : null;
	}

	/** The configured server or virtual server the request is for (the {@code server} tag), or {@code null}. */
	public String configuredId() {
		return kind == Kind.SERVER || kind == Kind.VIRTUAL ? target : null;
	}

}
