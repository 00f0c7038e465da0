package dev.mcprelay.virtual;

import java.util.Locale;
import java.util.Set;

import org.springframework.http.HttpMethod;
import org.springframework.stereotype.Component;

import dev.mcprelay.api.Caller;
import dev.mcprelay.http.RelayExchange;
import dev.mcprelay.metrics.ExchangeObservations;
import dev.mcprelay.proxy.McpRelay;
import dev.mcprelay.route.McpRouting;
import dev.mcprelay.route.VirtualMembers;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.SignalType;

/**
 * Sends one message of a virtual server to one member through the member's own relay ({@link McpRelay}), in this
 * process, as a client of the member would send it: every interceptor stage, rate limit, header rule, session check,
 * meter and log line is the member's, with the caller of the client's request and the virtual server in the context.
 * The member's answer comes back as a {@link MemberAnswer} as soon as the member's relay commits it.
 *
 * <p>The message carries the client's headers but those that belong to one session or one message (session id,
 * protocol version, {@code Last-Event-ID}, content headers, the 2026-07-28 {@code Mcp-*} headers, {@code Origin},
 * which the virtual server checked): those are the member's own. Cancelling the returned {@code Mono} before the
 * answer, or the answer's body after, cancels the member's exchange.
 */
@Component
class MemberCalls {

	/** The client headers a message to a member does not carry over. */
	private static final Set<String> OWN_HEADERS = Set.of("mcp-session-id", "mcp-protocol-version", "last-event-id",
			"content-length", "content-type", "transfer-encoding", "accept", "origin", "host", "mcp-method", "mcp-name",
			"connection", "keep-alive", "upgrade", "te", "trailer");

	private static final String ACCEPT_POST = "application/json, text/event-stream";

	private static final String MCP_METHOD = "Mcp-Method";

	private static final String MCP_NAME = "Mcp-Name";

	private final McpRelay relay;

	private final McpRouting routing;

	private final ExchangeObservations observations;

	MemberCalls(McpRelay relay, McpRouting routing, ExchangeObservations observations) {
		this.relay = relay;
		this.routing = routing;
		this.observations = observations;
	}

	/**
	 * Sends {@code method} to {@code member} for the client's exchange {@code client}.
	 *
	 * @param session the virtual session's session with the member ({@link MemberSession#NONE} before it has one)
	 * @param lastEventId the member's event id to resume after (GET), or {@code null}
	 * @param body the JSON-RPC message (POST), or {@code null}
	 */
	Mono<MemberAnswer> send(RelayExchange client, VirtualMembers virtual, String member, HttpMethod method,
			MemberSession session, String lastEventId, byte[] body) {
		return Mono.create(sink -> {
			HttpHeaders headers = headersFor(client.requestHeaders(), method, session, lastEventId);
			if (body != null && client.requestHeaders().contains(MCP_METHOD)) {
				mirror(headers, body);
			}
			MemberResponse response = new MemberResponse(member, sink::success);
			Caller caller = client.caller();
			MemberExchange exchange = new MemberExchange(method,
					routing.serverRoute(client.configuration(), member), client.configuration(), headers, body, caller,
					virtual, response);
			Disposable handling = relay.handle(exchange)
				.doFinally(signal -> observations.ended(exchange.record(), caller, signal == SignalType.CANCEL))
				.subscribe(null, sink::error, response::finish);
			sink.onCancel(handling);
		});
	}

	/**
	 * The 2026-07-28 headers that mirror the body (SEP-2243), for a client that sends them: of the message the member
	 * gets, whose name may have lost its prefix.
	 */
	private static void mirror(HttpHeaders headers, byte[] body) {
		com.fasterxml.jackson.databind.node.ObjectNode message = MemberMessages.parse(body);
		if (message == null || !message.path("method").isTextual()) {
			return;
		}
		headers.set(MCP_METHOD, message.get("method").asText());
		com.fasterxml.jackson.databind.JsonNode params = message.path("params");
		com.fasterxml.jackson.databind.JsonNode name = params.path("name").isTextual() ? params.get("name")
				: params.path("uri");
		if (name.isTextual()) {
			String value = name.textValue();
			boolean plain = value.chars().allMatch(c -> c >= 0x20 && c < 0x7f) && value.strip().equals(value);
			headers.set(MCP_NAME, plain ? value : "=?base64?" + java.util.Base64.getEncoder()
				.encodeToString(value.getBytes(java.nio.charset.StandardCharsets.UTF_8)) + "?=");
		}
	}

	private static HttpHeaders headersFor(HttpHeaders clientHeaders, HttpMethod method, MemberSession session,
			String lastEventId) {
		HttpHeaders headers = new DefaultHttpHeaders();
		for (String name : clientHeaders.names()) {
			if (!OWN_HEADERS.contains(name.toLowerCase(Locale.ROOT))) {
				headers.add(name, clientHeaders.getAll(name));
			}
		}
		if (HttpMethod.POST.equals(method)) {
			headers.set(HttpHeaderNames.CONTENT_TYPE, "application/json");
			headers.set(HttpHeaderNames.ACCEPT, ACCEPT_POST);
		}
		else if (HttpMethod.GET.equals(method)) {
			headers.set(HttpHeaderNames.ACCEPT, "text/event-stream");
		}
		if (session.sessionId() != null) {
			headers.set("Mcp-Session-Id", session.sessionId());
		}
		if (session.protocolVersion() != null) {
			headers.set("MCP-Protocol-Version", session.protocolVersion());
		}
		else if (session.sessionId() == null && clientHeaders.contains("MCP-Protocol-Version")) {
			// No session with the member (a 2026-07-28 client's request): the client's own version is the member's.
			headers.set("MCP-Protocol-Version", clientHeaders.get("MCP-Protocol-Version"));
		}
		if (lastEventId != null) {
			headers.set("Last-Event-ID", lastEventId);
		}
		return headers;
	}

}
