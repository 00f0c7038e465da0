package dev.mcprelay.virtual;

import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import org.springframework.http.HttpMethod;
import org.springframework.stereotype.Component;

import dev.mcprelay.api.Caller;
import dev.mcprelay.http.RelayExchange;
import dev.mcprelay.metrics.ExchangeObservations;
import dev.mcprelay.metrics.ExchangeRecord;
import dev.mcprelay.proxy.HeaderNameSet;
import dev.mcprelay.proxy.McpRelay;
import dev.mcprelay.proxy.OpenStreams;
import dev.mcprelay.route.McpRouting;
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
	private static final HeaderNameSet OWN_HEADERS = HeaderNameSet.of(List.of("Mcp-Session-Id", "MCP-Protocol-Version",
			"Last-Event-ID", "Content-Length", "Content-Type", "Transfer-Encoding", "Accept", "Origin", "Host",
			"Mcp-Method", "Mcp-Name", "Connection", "Keep-Alive", "Upgrade", "TE", "Trailer"));

	private static final String ACCEPT_POST = "application/json, text/event-stream";

	private static final String MCP_METHOD = "Mcp-Method";

	private static final String MCP_NAME = "Mcp-Name";

	private final McpRelay relay;

	private final McpRouting routing;

	private final ExchangeObservations observations;

	/** When a reload ends a request's session here: its member exchanges end then. */
	private final VirtualSessionEnds ends;

	MemberCalls(McpRelay relay, McpRouting routing, ExchangeObservations observations, VirtualSessionEnds ends) {
		this.ends = ends;
		this.relay = relay;
		this.routing = routing;
		this.observations = observations;
	}

	/**
	 * Sends {@code method} to {@code member} for the client's request {@code call}, with the members it may use as the
	 * request says ({@link VirtualCall#access()}); a client that stops reading the answer (the member's relay saw it
	 * take nothing for {@code timeouts.client-write}) has its connection closed, as a client of the member itself
	 * would. The member's exchange ends, as one of a removed server's does, when a reload ends the request's session
	 * here (or the virtual server's version a request without one runs on: {@link VirtualSessionEnds}) or withdraws the
	 * client's access to {@code member} ({@link MemberOrigin#endingOf}): not when it withdraws another member only.
	 *
	 * @param session the virtual session's session with the member ({@link MemberSession#NONE} before it has one)
	 * @param lastEventId the member's event id to resume after (GET), or {@code null}
	 * @param body the JSON-RPC message (POST), or {@code null}
	 */
	Mono<MemberAnswer> send(VirtualCall call, String member, HttpMethod method, MemberSession session,
			String lastEventId, byte[] body) {
		return send(call, member, method, session, lastEventId, body == null ? null : MemberMessage.of(body));
	}

	/**
	 * POSTs {@code message} to {@code member} for the client's request {@code call}, as
	 * {@link #send(VirtualCall, String, HttpMethod, MemberSession, String, byte[])} does; a message that carries its
	 * tree ({@link MemberMessage#routed}) hands it to the member's relay, which then does not parse it again.
	 */
	Mono<MemberAnswer> post(VirtualCall call, String member, MemberSession session, MemberMessage message) {
		return send(call, member, HttpMethod.POST, session, null, message);
	}

	private Mono<MemberAnswer> send(VirtualCall call, String member, HttpMethod method, MemberSession session,
			String lastEventId, MemberMessage body) {
		RelayExchange client = call.exchange();
		return send(new MemberOrigin(client.requestHeaders(), client.caller(), call.access(), client.configuration(),
				MemberOrigin.endingOf(call, member, ends.endedFor(call)), () -> client.accessWithdrawnNowFrom(member)),
				member, method, session, lastEventId, body, () -> closeStalled(client), () -> true);
	}

	/**
	 * Sends {@code method} to {@code member} on behalf of {@code origin}.
	 *
	 * @param session the virtual session's session with the member ({@link MemberSession#NONE} before it has one)
	 * @param lastEventId the member's event id to resume after (GET), or {@code null}
	 * @param body the JSON-RPC message (POST), or {@code null}
	 * @param onClientStalled run when the member's relay finds that whoever reads the answer took nothing of it for
	 * the member's {@code timeouts.client-write} (the relay has then ended the member's exchange)
	 */
	Mono<MemberAnswer> send(MemberOrigin origin, String member, HttpMethod method, MemberSession session,
			String lastEventId, byte[] body, Runnable onClientStalled) {
		return send(origin, member, method, session, lastEventId, body, onClientStalled, () -> true);
	}

	/**
	 * {@link #send(MemberOrigin, String, HttpMethod, MemberSession, String, byte[], Runnable)} for an answer whose
	 * reader may be absent for a while ({@code readerPresent}: a merged stream held for the client's next GET): the
	 * member's relay takes no reader for a stalled one.
	 */
	Mono<MemberAnswer> send(MemberOrigin origin, String member, HttpMethod method, MemberSession session,
			String lastEventId, byte[] body, Runnable onClientStalled, java.util.function.BooleanSupplier readerPresent) {
		return send(origin, member, method, session, lastEventId, body == null ? null : MemberMessage.of(body),
				onClientStalled, readerPresent);
	}

	private Mono<MemberAnswer> send(MemberOrigin origin, String member, HttpMethod method, MemberSession session,
			String lastEventId, MemberMessage body, Runnable onClientStalled,
			java.util.function.BooleanSupplier readerPresent) {
		return Mono.create(sink -> {
			HttpHeaders headers = headersFor(origin.headers(), method, session, lastEventId);
			if (body != null && origin.headers().contains(MCP_METHOD)) {
				mirror(headers, body);
			}
			// the member exchange's record, for what its answer tells of a cut by the relay (made just below)
			AtomicReference<ExchangeRecord> record = new AtomicReference<>();
			MemberResponse response = new MemberResponse(member,
					answer -> sink.success(answer.cutBy(() -> record.get().cutByRelayReason(),
							() -> record.get().refusedAsWithdrawn())),
					onClientStalled,
					readerPresent);
			Caller caller = origin.caller();
			MemberExchange exchange = new MemberExchange(method,
					routing.serverRoute(origin.configuration(), member), origin.configuration(), headers,
					body == null ? null : body.bytes(), body == null ? null : body.takeParsed(), caller,
					origin.access(), response, origin.ending(), origin.withdrawnNow());
			record.set(exchange.record());
			Disposable handling = relay.handle(exchange)
				.doFinally(signal -> observations.ended(exchange.record(), caller, signal == SignalType.CANCEL))
				// a member session ended by the relay's shutdown work is bounded by that work, not cut with the calls
				.contextWrite(OpenStreams.shutdownWork(sink.contextView()))
				.subscribe(null, sink::error, response::finish);
			sink.onCancel(handling);
		});
	}

	/** The client read nothing of a member's answer for the member's client-write bound: it is disconnected. */
	private static void closeStalled(RelayExchange client) {
		client.record().failed(false, "client_write_timeout");
		client.response().closeConnection();
	}

	/**
	 * The 2026-07-28 headers that mirror the body (SEP-2243), for a client that sends them: of the message the member
	 * gets, whose name may have lost its prefix.
	 */
	private static void mirror(HttpHeaders headers, MemberMessage message) {
		String method = message.method();
		if (method == null) {
			return;
		}
		headers.set(MCP_METHOD, method);
		String name = message.name();
		if (name != null) {
			headers.set(MCP_NAME, isPlain(name) ? name : "=?base64?" + java.util.Base64.getEncoder()
				.encodeToString(name.getBytes(java.nio.charset.StandardCharsets.UTF_8)) + "?=");
		}
	}

	/** Whether {@code value} goes in a header as it is: printable ASCII, no space at either end. */
	private static boolean isPlain(String value) {
		int length = value.length();
		for (int i = 0; i < length; i++) {
			char c = value.charAt(i);
			if (c < 0x20 || c >= 0x7f) {
				return false;
			}
		}
		return length == 0 || (value.charAt(0) != ' ' && value.charAt(length - 1) != ' ');
	}

	private static HttpHeaders headersFor(HttpHeaders clientHeaders, HttpMethod method, MemberSession session,
			String lastEventId) {
		HttpHeaders headers = new DefaultHttpHeaders();
		if (!HeaderLines.copyEach(clientHeaders, OWN_HEADERS, headers, true)) {
			for (String name : clientHeaders.names()) {
				if (!OWN_HEADERS.contains(name)) {
					headers.add(name, clientHeaders.getAll(name));
				}
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
