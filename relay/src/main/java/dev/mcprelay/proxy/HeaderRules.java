package dev.mcprelay.proxy;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;

import dev.mcprelay.api.Caller;
import dev.mcprelay.config.HeaderProperties;
import dev.mcprelay.transport.WireHeaders;
import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.util.AsciiString;

/**
 * Which headers cross the relay, in each direction.
 *
 * <p>Upstream: the client's headers minus hop-by-hop ones and those that belong to the client's connection or
 * identity ({@code Host}, the relay's own credentials {@code Authorization} and {@code X-Api-Key} (in every mode),
 * {@code Cookie}, {@code Origin}, {@code Referer}, {@code Accept-Encoding}, {@code Content-Length}, proxy
 * credentials, and what proxies in front of the relay say about the client's connection: {@code Forwarded} and
 * {@code X-Forwarded-*}, since the relay is the upstream's client and a client could write them to pass for another
 * address; a server configures {@code headers} to send one on purpose); then the server's configured headers, which
 * win over the client's; then the configured {@code authorization}. {@code Mcp-Session-Id},
 * {@code MCP-Protocol-Version}, {@code Last-Event-ID}, {@code Accept} and {@code Content-Type} always pass, also
 * when the client's {@code Connection} header names them. A header the client repeats goes upstream as repeated
 * lines, except the single-valued ones ({@link SingleValuedHeaders}: {@code Mcp-Session-Id},
 * {@code MCP-Protocol-Version}, {@code Content-Type}, {@code Mcp-Method}, {@code Mcp-Name}), of which the relay
 * refuses conflicting lines and passes one; a configured header replaces every line of its name.
 *
 * <p>Back to the client: the upstream's headers minus hop-by-hop ones, {@code Set-Cookie} (the client's cookies
 * never reach the upstream, so its cookies could never come back to it) and {@code WWW-Authenticate} (the upstream
 * challenges the relay's configured credentials, not the client's; a client following it would be sent to the
 * upstream's authorization server instead of the relay's); repeated lines ({@code Link}, {@code Vary}) stay
 * repeated, except that of a repeated {@code Content-Type} or {@code Mcp-Session-Id} the client gets the first line,
 * the one the relay read the body and recorded the session by; {@code Mcp-Session-Id} comes back even when the
 * upstream's {@code Connection} header names it.
 *
 * <p>The rules run on Netty's headers, the form both connections already hold them in: no header map is copied
 * into another kind, and no name is lower-cased to be looked up ({@link HeaderNameSet}).
 */
public final class HeaderRules {

	/** The session header of MCP's Streamable HTTP transport (2025 era). */
	public static final String MCP_SESSION_ID = "Mcp-Session-Id";

	private static final List<String> HOP_BY_HOP = List.of("connection", "keep-alive", "proxy-connection",
			"proxy-authenticate", "proxy-authorization", "te", "trailer", "transfer-encoding", "upgrade");

	private static final HeaderNameSet NOT_FORWARDED_UPSTREAM = HeaderNameSet.of(Stream.concat(HOP_BY_HOP.stream(),
			Stream.of("host", "authorization", "x-api-key", "cookie", "origin", "referer", "accept-encoding",
					"content-length", "expect", "forwarded", "x-forwarded-for", "x-forwarded-host", "x-forwarded-port",
					"x-forwarded-proto", "x-forwarded-prefix", "x-forwarded-ssl"))
		.toList());

	private static final HeaderNameSet NOT_RELAYED_DOWNSTREAM = HeaderNameSet
		.of(Stream.concat(HOP_BY_HOP.stream(), Stream.of("set-cookie", "www-authenticate")).toList());

	/** {@link #NOT_RELAYED_DOWNSTREAM}, and the length of a body the relay does not relay exactly as received. */
	private static final HeaderNameSet NOT_RELAYED_DOWNSTREAM_NOR_LENGTH = HeaderNameSet.of(Stream
		.concat(HOP_BY_HOP.stream(), Stream.of("set-cookie", "www-authenticate", "content-length"))
		.toList());

	/**
	 * What MCP needs on every hop, which a {@code Connection} header cannot take off it: a client or upstream that
	 * lists one there does not get to drop the session, its protocol version, a resumption point or the media types.
	 */
	private static final HeaderNameSet ALWAYS_PASS = HeaderNameSet.of(List.of(MCP_SESSION_ID,
			"mcp-protocol-version", "last-event-id", "accept", "content-type"));

	private static final AsciiString CONNECTION = AsciiString.cached("connection");

	private static final DefaultHttpHeadersFactory RELAYED = DefaultHttpHeadersFactory.headersFactory()
		.withValidation(false);

	private HeaderRules() {
	}

	/** {@link #upstreamRequestHeaders(io.netty.handler.codec.http.HttpHeaders, Caller, Upstream, boolean)} of Spring's headers. */
	public static WireHeaders upstreamRequestHeaders(HttpHeaders inbound, Caller caller, Upstream upstream,
			boolean hasBody) {
		return upstreamRequestHeaders(WireHeaders.nettyOf(inbound), caller, upstream, hasBody);
	}

	/**
	 * The headers of the request sent upstream, from the client's request headers as Reactor Netty read them.
	 *
	 * @throws RelayFailure (400) when a {@code required} configured header cannot be resolved from the request: it
	 * is absent, or its value is empty
	 */
	public static WireHeaders upstreamRequestHeaders(io.netty.handler.codec.http.HttpHeaders inbound, Caller caller,
			Upstream upstream, boolean hasBody) {
		WireHeaders out = new WireHeaders();
		io.netty.handler.codec.http.HttpHeaders wire = out.netty();
		copyCrossing(inbound, NOT_FORWARDED_UPSTREAM, wire);
		if (RelaySessions.isMinted(wire.get(MCP_SESSION_ID))) {
			// the relay's own session, for an upstream that keeps none
			wire.remove(MCP_SESSION_ID);
		}
		for (HeaderProperties header : upstream.properties().headers()) {
			wire.remove(header.name());
			if (header.value() != null) {
				wire.set(header.name(), header.value());
				continue;
			}
			if (header.fromCallerClaim() != null) {
				String claim = caller.claimAsText(header.fromCallerClaim());
				if (claim != null && !claim.isBlank()) {
					wire.set(header.name(), claim);
				}
				else if (header.required()) {
					throw RelayFailures.missingCallerClaim(upstream.id(), header.fromCallerClaim());
				}
				continue;
			}
			List<String> values = present(inbound.getAll(header.fromRequestHeader()));
			if (!values.isEmpty()) {
				wire.add(header.name(), values);
			}
			else if (header.required()) {
				throw RelayFailures.missingRequiredHeader(upstream.id(), header.fromRequestHeader());
			}
		}
		String authorization = upstream.properties().authorization();
		if (authorization != null) {
			wire.set(HttpHeaders.AUTHORIZATION, authorization);
		}
		if (hasBody && !wire.contains(HttpHeaders.CONTENT_TYPE)) {
			wire.set(HttpHeaders.CONTENT_TYPE, MediaType.APPLICATION_JSON_VALUE);
		}
		return out;
	}

	/**
	 * The headers of a request the relay sends a server on its own behalf, to learn about the server (its protocol
	 * versions, {@code dev.mcprelay.bridge.ServerCredentials}): what the server's configuration gives the relay itself,
	 * its static {@code headers} ({@code value}) and its {@code authorization}; never a header of a client's request, nor
	 * a configured header that copies one ({@code from-request-header}) or a caller's claim ({@code from-caller-claim}).
	 * A new set each call.
	 */
	public static HttpHeaders ownRequestHeaders(Upstream upstream) {
		HttpHeaders headers = new HttpHeaders();
		for (HeaderProperties header : upstream.properties().headers()) {
			if (header.value() != null) {
				headers.set(header.name(), header.value());
			}
		}
		String authorization = upstream.properties().authorization();
		if (authorization != null) {
			headers.set(HttpHeaders.AUTHORIZATION, authorization);
		}
		return headers;
	}

	/**
	 * The headers of a request the relay sends upstream on its own account within a client's session (its answer to a
	 * server request, its listing of the catalogue): the client's upstream headers, without those that describe the
	 * client's own request ({@code Last-Event-ID}, {@code Mcp-Name}, {@code Mcp-Param-*}), asking for JSON or SSE, with
	 * {@code Mcp-Method} naming {@code method} where the client sent one ({@code null}: a response, which has none).
	 *
	 * @throws RelayFailure as {@link #upstreamRequestHeaders} does
	 */
	public static WireHeaders relayRequestHeaders(io.netty.handler.codec.http.HttpHeaders inbound, Caller caller,
			Upstream upstream, String method) {
		WireHeaders headers = upstreamRequestHeaders(inbound, caller, upstream, true);
		io.netty.handler.codec.http.HttpHeaders wire = headers.netty();
		wire.remove("Last-Event-ID");
		wire.remove(MirroredHeaders.MCP_NAME);
		List<String> params = new ArrayList<>(0);
		for (String name : wire.names()) {
			if (name.toLowerCase(Locale.ROOT).startsWith("mcp-param-")) {
				params.add(name);
			}
		}
		params.forEach(wire::remove);
		if (method == null) {
			wire.remove(MirroredHeaders.MCP_METHOD);
		}
		else if (wire.contains(MirroredHeaders.MCP_METHOD)) {
			wire.set(MirroredHeaders.MCP_METHOD, method);
		}
		wire.set(HttpHeaders.CONTENT_TYPE, MediaType.APPLICATION_JSON_VALUE);
		wire.set(HttpHeaders.ACCEPT, "application/json, text/event-stream");
		return headers;
	}

	/** {@link #relayRequestHeaders(io.netty.handler.codec.http.HttpHeaders, Caller, Upstream, String)} of Spring's headers. */
	public static WireHeaders relayRequestHeaders(HttpHeaders inbound, Caller caller, Upstream upstream, String method) {
		return relayRequestHeaders(WireHeaders.nettyOf(inbound), caller, upstream, method);
	}

	/**
	 * The upstream response's headers that may reach the client, as a new set of headers to put on the client's
	 * response (each name replacing what the response had).
	 *
	 * @param keepContentLength true only when the body is relayed exactly as received
	 */
	public static io.netty.handler.codec.http.HttpHeaders relayedResponseHeaders(
			io.netty.handler.codec.http.HttpHeaders upstream, boolean keepContentLength) {
		io.netty.handler.codec.http.HttpHeaders relayed = RELAYED.newHeaders();
		putRelayedResponseHeaders(upstream, keepContentLength, relayed);
		return relayed;
	}

	/**
	 * Puts the upstream response's headers that may reach the client ({@link #relayedResponseHeaders}) straight on the
	 * client's response headers {@code to}, with no set of them made apart first: each name that crosses replaces what
	 * {@code to} had under it; the rest of {@code to} stays.
	 *
	 * @param keepContentLength true only when the body is relayed exactly as received
	 */
	public static void putRelayedResponseHeaders(io.netty.handler.codec.http.HttpHeaders upstream,
			boolean keepContentLength, io.netty.handler.codec.http.HttpHeaders to) {
		HeaderNameSet blocked = keepContentLength ? NOT_RELAYED_DOWNSTREAM : NOT_RELAYED_DOWNSTREAM_NOR_LENGTH;
		HeaderNameSet connectionListed = connectionListed(upstream);
		if (!to.isEmpty()) {
			Iterator<Map.Entry<CharSequence, CharSequence>> entries = upstream.iteratorCharSequence();
			while (entries.hasNext()) {
				CharSequence name = entries.next().getKey();
				if (crosses(name, blocked, connectionListed)) {
					to.remove(name);
				}
			}
		}
		copyCrossing(upstream, blocked, connectionListed, to);
	}

	/** {@link #relayedResponseHeaders} put on Spring's headers of a response. */
	public static void copyResponseHeaders(HttpHeaders upstream, HttpHeaders client, boolean keepContentLength) {
		io.netty.handler.codec.http.HttpHeaders relayed = relayedResponseHeaders(WireHeaders.nettyOf(upstream),
				keepContentLength);
		for (String name : relayed.names()) {
			client.put(name, relayed.getAll(name));
		}
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

	/**
	 * Adds to {@code to} every header of {@code from} that may cross the relay: not named in {@code blocked}, nor in
	 * {@code from}'s own {@code Connection} header unless the relay promises to pass it ({@link #ALWAYS_PASS}). Of a
	 * single-valued header ({@link SingleValuedHeaders}) only the first line crosses, the one the relay read.
	 */
	private static void copyCrossing(io.netty.handler.codec.http.HttpHeaders from, HeaderNameSet blocked,
			io.netty.handler.codec.http.HttpHeaders to) {
		copyCrossing(from, blocked, connectionListed(from), to);
	}

	/** {@link #copyCrossing(io.netty.handler.codec.http.HttpHeaders, HeaderNameSet, io.netty.handler.codec.http.HttpHeaders)}, the {@code Connection} list read. */
	private static void copyCrossing(io.netty.handler.codec.http.HttpHeaders from, HeaderNameSet blocked,
			HeaderNameSet connectionListed, io.netty.handler.codec.http.HttpHeaders to) {
		Iterator<Map.Entry<CharSequence, CharSequence>> entries = from.iteratorCharSequence();
		while (entries.hasNext()) {
			Map.Entry<CharSequence, CharSequence> entry = entries.next();
			CharSequence name = entry.getKey();
			if (crosses(name, blocked, connectionListed)
					&& !(SingleValuedHeaders.NAMES.contains(name) && to.contains(name))) {
				to.add(name, entry.getValue());
			}
		}
	}

	/** Whether a header line may cross: not {@code blocked}, nor listed in {@code Connection} unless MCP needs it. */
	private static boolean crosses(CharSequence name, HeaderNameSet blocked, HeaderNameSet connectionListed) {
		return !blocked.contains(name) && (!connectionListed.contains(name) || ALWAYS_PASS.contains(name));
	}

	/** The names a {@code Connection} header lists, which belong to that hop only. */
	private static HeaderNameSet connectionListed(io.netty.handler.codec.http.HttpHeaders headers) {
		String connection = headers.get(CONNECTION);
		if (connection == null) {
			return HeaderNameSet.EMPTY;
		}
		List<String> values = headers.getAll(CONNECTION);
		// The usual values name no header (keep-alive and close are hop-by-hop anyway): no tokenizing, no set.
		if (values.size() == 1 && (connection.equalsIgnoreCase("keep-alive") || connection.equalsIgnoreCase("close"))) {
			return HeaderNameSet.EMPTY;
		}
		List<String> tokens = new ArrayList<>();
		for (String value : values) {
			for (String token : value.split(",")) {
				if (!token.isBlank()) {
					tokens.add(token.trim());
				}
			}
		}
		return HeaderNameSet.of(tokens);
	}

}
