package dev.mcprelay.testsupport;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

/**
 * An MCP session opened over raw HTTP through the relay: {@code initialize}, then
 * {@code notifications/initialized}; later POSTs carry the session id and protocol version, as a client's would.
 */
public final class McpSession {

	public static final String PROTOCOL_VERSION = "2025-06-18";

	private final RawHttp http;

	private final String server;

	private final String sessionId;

	private McpSession(RawHttp http, String server, String sessionId) {
		this.http = http;
		this.server = server;
		this.sessionId = sessionId;
	}

	public static McpSession open(RawHttp http, String server) {
		return open(http, server, "{}");
	}

	/** A session whose client declares {@code capabilities} (a JSON object), e.g. {@code {"sampling":{}}}. */
	public static McpSession open(RawHttp http, String server, String capabilities) {
		HttpResponse<String> initialized = http.send(http.post(server, initialize(0).replace("\"capabilities\":{}",
				"\"capabilities\":" + capabilities)));
		if (initialized.statusCode() != 200) {
			throw new AssertionError("initialize through the relay failed: " + initialized.statusCode() + " "
					+ initialized.body());
		}
		McpSession session = new McpSession(http, server,
				initialized.headers().firstValue("Mcp-Session-Id").orElse(null));
		HttpResponse<String> notified = session
			.post("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
		if (notified.statusCode() != 202) {
			throw new AssertionError("notifications/initialized was answered " + notified.statusCode());
		}
		return session;
	}

	/** An {@code initialize} request with this id. */
	public static String initialize(Object id) {
		return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"initialize\",\"params\":{\"protocolVersion\":\""
				+ PROTOCOL_VERSION + "\",\"capabilities\":{},\"clientInfo\":{\"name\":\"raw-test\",\"version\":\"1\"}}}";
	}

	/** POSTs {@code body} in this session and reads the whole answer. */
	public HttpResponse<String> post(String body) {
		return http.send(request(body));
	}

	/** A POST of {@code body} in this session, for callers that stream the answer. */
	public HttpRequest.Builder request(String body) {
		HttpRequest.Builder request = http.post(server, body).header("MCP-Protocol-Version", PROTOCOL_VERSION);
		return sessionId == null ? request : request.header("Mcp-Session-Id", sessionId);
	}

	/** The session id the upstream gave; {@code null} for a stateless server. */
	public String id() {
		return sessionId;
	}

}
