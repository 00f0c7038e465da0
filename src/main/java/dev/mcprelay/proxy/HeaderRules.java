package dev.mcprelay.proxy;

import java.util.List;
import java.util.Locale;
import java.util.Set;

import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;

import dev.mcprelay.config.HeaderProperties;
import dev.mcprelay.security.Caller;

/**
 * Which headers cross the relay, in each direction.
 *
 * <p>Upstream: the client's headers minus hop-by-hop ones and those that belong to the client's connection or
 * identity ({@code Host}, {@code Authorization}, {@code Cookie}, {@code Origin}, {@code Referer},
 * {@code Accept-Encoding}, {@code Content-Length}, proxy credentials); then the server's configured headers, which
 * win over the client's; then the configured {@code authorization}. {@code Mcp-Session-Id},
 * {@code MCP-Protocol-Version}, {@code Last-Event-ID}, {@code Accept} and {@code Content-Type} always pass.
 *
 * <p>Back to the client: the upstream's headers minus hop-by-hop ones, {@code Set-Cookie} (the client's cookies
 * never reach the upstream, so its cookies could never come back to it) and {@code WWW-Authenticate} (the upstream
 * challenges the relay's configured credentials, not the client's; a client following it would be sent to the
 * upstream's authorization server instead of the relay's).
 */
public final class HeaderRules {

	/** The session header of MCP's Streamable HTTP transport (2025 era). */
	public static final String MCP_SESSION_ID = "Mcp-Session-Id";

	private static final Set<String> HOP_BY_HOP = Set.of("connection", "keep-alive", "proxy-connection",
			"proxy-authenticate", "proxy-authorization", "te", "trailer", "transfer-encoding", "upgrade");

	private static final Set<String> NOT_FORWARDED_UPSTREAM = Set.of("host", "authorization", "cookie", "origin",
			"referer", "accept-encoding", "content-length", "expect", "forwarded");

	private static final Set<String> NOT_RELAYED_DOWNSTREAM = Set.of("set-cookie", "content-length",
			"www-authenticate");

	private HeaderRules() {
	}

	/**
	 * The headers of the request sent upstream.
	 *
	 * @throws RelayFailure (400) when a {@code required} configured header cannot be resolved from the request: it
	 * is absent, or its value is empty
	 */
	public static HttpHeaders upstreamRequestHeaders(HttpHeaders inbound, Caller caller, Upstream upstream,
			boolean hasBody) {
		HttpHeaders out = new HttpHeaders();
		Set<String> connectionListed = connectionListed(inbound);
		inbound.forEach((name, values) -> {
			String lower = name.toLowerCase(Locale.ROOT);
			if (!HOP_BY_HOP.contains(lower) && !NOT_FORWARDED_UPSTREAM.contains(lower) && !connectionListed.contains(lower)) {
				out.addAll(name, values);
			}
		});
		for (HeaderProperties header : upstream.properties().headers()) {
			out.remove(header.name());
			if (header.value() != null) {
				out.set(header.name(), header.value());
				continue;
			}
			if (header.fromCallerClaim() != null) {
				String claim = caller.claimAsText(header.fromCallerClaim());
				if (claim != null && !claim.isBlank()) {
					out.set(header.name(), claim);
				}
				else if (header.required()) {
					throw RelayFailures.missingCallerClaim(upstream.id(), header.fromCallerClaim());
				}
				continue;
			}
			List<String> values = present(inbound.get(header.fromRequestHeader()));
			if (!values.isEmpty()) {
				out.addAll(header.name(), values);
			}
			else if (header.required()) {
				throw RelayFailures.missingRequiredHeader(upstream.id(), header.fromRequestHeader());
			}
		}
		String authorization = upstream.properties().authorization();
		if (authorization != null) {
			out.set(HttpHeaders.AUTHORIZATION, authorization);
		}
		if (hasBody && out.getContentType() == null) {
			out.setContentType(MediaType.APPLICATION_JSON);
		}
		return out;
	}

	/**
	 * The headers of a request the relay sends upstream on its own account within a client's session (its answer to a
	 * server request, its listing of the catalogue): the client's upstream headers, without those that describe the
	 * client's own request ({@code Last-Event-ID}, {@code Mcp-Name}, {@code Mcp-Param-*}), asking for JSON or SSE, with
	 * {@code Mcp-Method} naming {@code method} where the client sent one ({@code null}: a response, which has none).
	 *
	 * @throws RelayFailure as {@link #upstreamRequestHeaders} does
	 */
	public static HttpHeaders relayRequestHeaders(HttpHeaders inbound, Caller caller, Upstream upstream, String method) {
		HttpHeaders headers = upstreamRequestHeaders(inbound, caller, upstream, true);
		headers.remove("Last-Event-ID");
		headers.remove(MirroredHeaders.MCP_NAME);
		headers.keySet().removeIf(name -> name.toLowerCase(Locale.ROOT).startsWith("mcp-param-"));
		if (method == null) {
			headers.remove(MirroredHeaders.MCP_METHOD);
		}
		else if (headers.containsKey(MirroredHeaders.MCP_METHOD)) {
			headers.set(MirroredHeaders.MCP_METHOD, method);
		}
		headers.setContentType(MediaType.APPLICATION_JSON);
		headers.set(HttpHeaders.ACCEPT, "application/json, text/event-stream");
		return headers;
	}

	/**
	 * Copies the upstream response's headers that may reach the client.
	 *
	 * @param keepContentLength true only when the body is relayed exactly as received
	 */
	public static void copyResponseHeaders(HttpHeaders upstream, HttpHeaders client, boolean keepContentLength) {
		Set<String> connectionListed = connectionListed(upstream);
		upstream.forEach((name, values) -> {
			String lower = name.toLowerCase(Locale.ROOT);
			boolean contentLength = lower.equals("content-length");
			if (!HOP_BY_HOP.contains(lower) && !connectionListed.contains(lower)
					&& (!NOT_RELAYED_DOWNSTREAM.contains(lower) || (contentLength && keepContentLength))) {
				client.put(name, values);
			}
		});
	}

	/** The values that say something: an empty or blank inbound value counts as no value. */
	private static List<String> present(List<String> values) {
		if (values == null || values.isEmpty()) {
			return List.of();
		}
		for (String value : values) {
			if (value == null || value.isBlank()) {
				return values.stream().filter(v -> v != null && !v.isBlank()).toList();
			}
		}
		return values;
	}

	private static Set<String> connectionListed(HttpHeaders headers) {
		String connection = headers.getFirst(HttpHeaders.CONNECTION);
		if (connection == null) {
			return Set.of();
		}
		// The usual values name no header (keep-alive and close are hop-by-hop anyway): no tokenizing, no set.
		if (headers.get(HttpHeaders.CONNECTION).size() == 1
				&& (connection.equalsIgnoreCase("keep-alive") || connection.equalsIgnoreCase("close"))) {
			return Set.of();
		}
		List<String> tokens = headers.getConnection();
		return Set.copyOf(tokens.stream().map(token -> token.trim().toLowerCase(Locale.ROOT)).toList());
	}

}
