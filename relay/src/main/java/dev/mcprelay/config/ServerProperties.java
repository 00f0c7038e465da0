package dev.mcprelay.config;

import java.net.URI;
import java.util.List;
import java.util.Objects;

import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;

/**
 * One upstream MCP server, mcp-relay.servers.<id>.
 *
 * @param url the upstream's endpoint, an absolute http or https URL: its Streamable HTTP endpoint, or with
 * {@code transport: sse} the URL of its event stream (the GET that answers with an {@code endpoint} event)
 * @param transport what the upstream speaks: {@code streamable-http} (the default) or {@code sse} (the legacy
 * HTTP+SSE transport, bridged per session; the client still speaks Streamable HTTP to the relay)
 * @param authorization the Authorization header value sent upstream, e.g. {@code Bearer ${TOKEN}}; the
 * client's own Authorization header is never forwarded. A secret: never logged or printed.
 * @param headers extra headers sent upstream, each with a static value or copied from the inbound request
 * @param timeouts how long the relay waits on this upstream
 * @param maxBufferedBody the largest body the relay reads into memory for this server: the client's POST body,
 * a JSON response, and one SSE event
 * @param tools which of the upstream's tools clients may see and call
 * @param arguments tool arguments the relay injects, and the reserved prefix clients may not use
 * @param rejectedServerRequests what the client sees when an interceptor rejects a server-to-client request: nothing
 * ({@code silent}, the default) or a warning notification ({@code notify}); the server always gets the error
 * @param toolSearch whether clients find tools through {@code search_available_tools} instead of the whole list
 * @param allowedScopes in {@code jwt} security mode, a token must carry at least one of these scopes to use this
 * server; empty, any valid token may
 * @param oauth2 where the relay gets the server's access token, instead of a static {@code authorization}; or
 * {@code null}
 * @param protocolVersions the MCP protocol versions the server speaks, when the operator pins them (e.g.
 * {@code [2026-07-28]} for a server that moved to the per-request generation); empty (the default), the relay learns
 * them from the server's answers. They decide whether a client of the other generation is bridged (the
 * {@code dev.mcprelay.bridge} package); only versions the relay knows may be named
 */
public record ServerProperties(
		String url,
		@DefaultValue("streamable-http") UpstreamTransportKind transport,
		String authorization,
		@DefaultValue List<HeaderProperties> headers,
		@DefaultValue TimeoutProperties timeouts,
		@DefaultValue(ServerProperties.DEFAULT_MAX_BUFFERED_BODY) DataSize maxBufferedBody,
		@DefaultValue ToolsProperties tools,
		@DefaultValue ArgumentsProperties arguments,
		@DefaultValue("silent") RejectedServerRequests rejectedServerRequests,
		@DefaultValue ToolSearchProperties toolSearch,
		@DefaultValue List<String> allowedScopes,
		UpstreamOAuth2Properties oauth2,
		@DefaultValue List<String> protocolVersions) {

	/** A server's {@code max-buffered-body} when it sets none. */
	public static final String DEFAULT_MAX_BUFFERED_BODY = "50MB";


	public ServerProperties {
		transport = transport == null ? UpstreamTransportKind.STREAMABLE_HTTP : transport;
		headers = headers == null ? List.of() : List.copyOf(headers);
		allowedScopes = allowedScopes == null ? List.of() : List.copyOf(allowedScopes);
		protocolVersions = protocolVersions == null ? List.of() : List.copyOf(protocolVersions);
		toolSearch = toolSearch == null ? new ToolSearchProperties(false, 5, List.of()) : toolSearch;
	}

	/**
	 * Whether {@code other} reaches the same upstream in the same way: the settings that define the connection and
	 * which upstream session is valid on it ({@code url}, {@code transport}, {@code authorization}, {@code headers},
	 * {@code oauth2}, {@code protocol-versions}) are equal. The others (who may use the server: {@code allowed-scopes};
	 * what the relay lets through or changes: {@code tools}, {@code arguments}, {@code tool-search},
	 * {@code rejected-server-requests}; its limits: {@code timeouts}, {@code max-buffered-body}) do not make it another
	 * server: a stream or session opened on these settings is as valid on {@code other}'s. {@code false} for
	 * {@code null}.
	 */
	public boolean sameConnectionAs(ServerProperties other) {
		return other != null && Objects.equals(url, other.url) && transport == other.transport
				&& Objects.equals(authorization, other.authorization) && headers.equals(other.headers)
				&& Objects.equals(oauth2, other.oauth2) && protocolVersions.equals(other.protocolVersions);
	}

	/** The upstream URL as a URI; only valid after RelayPropertiesValidator accepted it. */
	public URI uri() {
		return URI.create(url);
	}

	/** The URL with user info and query redacted, safe for logs and error messages. */
	public String redactedUrl() {
		try {
			URI uri = uri();
			String port = uri.getPort() < 0 ? "" : ":" + uri.getPort();
			String path = uri.getRawPath() == null ? "" : uri.getRawPath();
			return uri.getScheme() + "://" + uri.getHost() + port + path + (uri.getRawQuery() == null ? "" : "?<redacted>");
		}
		catch (RuntimeException ex) {
			return "<unparsable url>";
		}
	}

	@Override
	public String toString() {
		return "ServerProperties[url=" + redactedUrl() + ", transport=" + transport + ", authorization=" + (authorization == null ? "none" : "<redacted>")
				+ ", headers=" + headers + ", timeouts=" + timeouts + ", maxBufferedBody=" + maxBufferedBody + ", tools=" + tools
				+ ", arguments=" + arguments + ", rejectedServerRequests=" + rejectedServerRequests + ", toolSearch=" + toolSearch
				+ ", allowedScopes="
				+ allowedScopes + ", oauth2=" + oauth2 + ", protocolVersions=" + protocolVersions + "]";
	}

}
