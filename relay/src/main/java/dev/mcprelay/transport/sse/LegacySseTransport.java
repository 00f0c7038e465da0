package dev.mcprelay.transport.sse;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;

import dev.mcprelay.jsonrpc.JsonRpcParseException;
import dev.mcprelay.jsonrpc.JsonRpcParser;
import dev.mcprelay.jsonrpc.JsonRpcPayload;
import dev.mcprelay.transport.LocalUpstreamResponse;
import dev.mcprelay.transport.UpstreamHttp;
import dev.mcprelay.transport.UpstreamRequest;
import dev.mcprelay.transport.UpstreamResponse;
import dev.mcprelay.transport.UpstreamTransport;
import dev.mcprelay.transport.UpstreamTransportException.Kind;
import dev.mcprelay.transport.UpstreamTransportException;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.SignalType;
import reactor.netty.http.client.HttpClient;

/**
 * The bridge to a legacy HTTP+SSE server ({@code transport: sse}, MCP 2024-11-05, as mcp-hub and older servers
 * speak it) behind a Streamable HTTP front (DESIGN section 9):
 * <ul>
 * <li><b>open</b>: a client POST holding {@code initialize} opens the session's upstream event stream (GET on the
 * configured URL with the request's upstream headers), waits for the endpoint it names ({@link MessageEndpoint}) and
 * mints the relay session id the client gets as {@code Mcp-Session-Id};</li>
 * <li><b>send</b>: each client POST is POSTed to the endpoint; its answers come back on the stream and are matched
 * by id: the client gets the response as JSON, or as an SSE stream when progress notifications for it come first
 * (or the POST was a batch). Notifications and responses alone are answered 202 once the endpoint accepted them;</li>
 * <li><b>receive</b>: the client's GET stream carries what no POST waits for ({@link ClientOutbox});</li>
 * <li><b>close</b>: DELETE ends the session and closes the upstream stream.</li>
 * </ul>
 * Faults: the endpoint answering 4xx/5xx fails that POST (502); no endpoint within {@code timeouts.non-streaming}
 * fails {@code initialize} (504); the stream ending or breaking fails every waiting POST and ends the session, so the
 * next request gets 404. Waiting for an answer is bounded by the relay's non-streaming deadline, as for any upstream,
 * and an answer that streams (progress first) by its streaming-idle bound between its own messages: the stream's
 * keepalive comments are the session's, and reach only the client's GET stream. A session whose {@code initialize}
 * does not end with its result handed to the client (it failed, timed out, was answered with an error, or the client
 * went away) ends at once, with its upstream stream. What waits for the client is bounded ({@link HeldLimits}): a POST
 * whose answers overflow fails (503, {@code held_messages_full}).
 * The relay's own session id never reaches the upstream.
 */
public final class LegacySseTransport implements UpstreamTransport, AutoCloseable {

	/** Headers of the client's request that describe its Streamable HTTP exchange with the relay, not the upstream's. */
	private static final List<String> NOT_FOR_THE_UPSTREAM = List.of("Mcp-Session-Id", "Last-Event-ID",
			"MCP-Protocol-Version", HttpHeaders.ACCEPT, HttpHeaders.CONTENT_LENGTH);

	private final HttpClient httpClient;

	private final String serverId;

	private final URI streamUri;

	private final Duration openTimeout;

	/** How long a session id in a stream's headers waits for the stream to name its endpoint. */
	private final Duration headerGrace;

	private final long maxEventBytes;

	private final BridgedSessions sessions;

	private final HeldLimits held;

	private final Runnable onUnmatchedAnswer;

	/**
	 * @param streamUri the server's event stream, {@code mcp-relay.servers.<id>.url}
	 * @param openTimeout how long to wait for the stream's endpoint: four fifths of {@code timeouts.non-streaming},
	 * which bounds the whole {@code initialize}, so that a server that names no endpoint is told apart from one that
	 * is slow to answer
	 * @param maxEventBytes the largest event read from the stream ({@code max-buffered-body})
	 * @param maxSessions how many sessions may be open at once on this replica
	 * @param maxPerCaller how many of them one caller may hold; past it the caller's oldest ends
	 * @param idleTimeout when an unused session ends
	 * @param onEvicted told of each session ended because its caller held too many
	 * @param held what a session may hold for its client, and whom it tells when that is reached
	 * @param onUnmatchedAnswer told of each answer a session dropped because no POST of it waits for that id
	 */
	public LegacySseTransport(HttpClient httpClient, String serverId, URI streamUri, Duration openTimeout,
			long maxEventBytes, int maxSessions, int maxPerCaller, Duration idleTimeout, Runnable onEvicted,
			HeldLimits held, Runnable onUnmatchedAnswer) {
		this.held = held;
		this.onUnmatchedAnswer = onUnmatchedAnswer;
		this.httpClient = httpClient;
		this.serverId = serverId;
		this.streamUri = streamUri;
		this.openTimeout = openTimeout;
		this.headerGrace = openTimeout.dividedBy(2).compareTo(SessionEndpoint.HEADER_GRACE) < 0
				? openTimeout.dividedBy(2) : SessionEndpoint.HEADER_GRACE;
		this.maxEventBytes = maxEventBytes;
		this.sessions = new BridgedSessions(serverId, maxSessions, maxPerCaller, idleTimeout, onEvicted);
	}

	@Override
	public Mono<Void> send(UpstreamRequest request, Function<UpstreamResponse, Mono<Void>> handler) {
		return Mono.defer(() -> {
			JsonRpcPayload payload = parse(request.body());
			if (opensSession(payload)) {
				return open(request).flatMap(session -> deliver(session, request, payload, handler, true));
			}
			return deliver(sessions.require(request.sessionId(), request.callerId()), request, payload, handler,
					false);
		});
	}

	@Override
	public Mono<Void> receive(UpstreamRequest request, Function<UpstreamResponse, Mono<Void>> handler) {
		return Mono.defer(() -> {
			BridgedSession session = sessions.require(request.sessionId(), request.callerId());
			ClientOutbox outbox = session.outbox();
			long attachment = outbox.attach();
			if (attachment == 0) {
				return Mono.error(new UpstreamTransportException(Kind.CONFLICT, "stream_already_open",
						"This session already has its GET stream open; only one at a time."));
			}
			return handler.apply(LocalUpstreamResponse.eventStream(sessionHeader(session), outbox.messages(attachment)))
				.doFinally(signal -> {
					outbox.detach(attachment);
					session.touch();
				});
		});
	}

	@Override
	public Mono<Void> close(UpstreamRequest request, Function<UpstreamResponse, Mono<Void>> handler) {
		return Mono.defer(() -> {
			BridgedSession session = sessions.require(request.sessionId(), request.callerId());
			session.end("the client ended the session");
			request.onWritten().run();
			return handler.apply(LocalUpstreamResponse.empty(HttpStatus.OK));
		});
	}

	/**
	 * Whether the POST opens a session: it holds an {@code initialize} request. An {@code initialize} without an id
	 * (a notification, which nobody answers) opens none: it belongs to the session the request names, like any other
	 * message, so that no session is opened that no answer could ever establish or end.
	 */
	private static boolean opensSession(JsonRpcPayload payload) {
		return payload.messages()
			.stream()
			.anyMatch(message -> message.isRequest() && "initialize".equals(message.method()));
	}

	/** Opens a session: its upstream stream, until it names its endpoint within the open timeout. */
	private Mono<BridgedSession> open(UpstreamRequest request) {
		return Mono.defer(() -> {
			BridgedSession[] created = new BridgedSession[1];
			BridgedSession session = new BridgedSession(BridgedSessions.mintId(), request.callerId(), serverId,
					streamUri, maxEventBytes, headerGrace, held, () -> sessions.remove(created[0]), onUnmatchedAnswer);
			created[0] = session;
			sessions.add(session);
			return session.open(httpClient, upstreamHeaders(request.headers(), false))
				.timeout(openTimeout)
				.onErrorMap(TimeoutException.class, timeout -> new UpstreamTransportException(Kind.UPSTREAM_TIMEOUT,
						"upstream_no_endpoint", "MCP server '" + serverId + "' named no message endpoint on its event "
								+ "stream within " + openTimeout.toMillis() + " ms; is it a legacy HTTP+SSE server?"))
				.doOnError(error -> session.end("it could not be opened"))
				.doOnCancel(() -> session.end("the client went away while it opened"))
				.thenReturn(session);
		});
	}

	/**
	 * POSTs the client's message to the session's endpoint and answers the client with what the stream sends back
	 * for it: one response alone as JSON, anything else (progress first, a batch) as an SSE stream. For the
	 * {@code initialize} that {@code opened} the session, the session ends unless this completes with the
	 * {@code initialize}'s result handed on; an {@code initialize} answered with an error alone, as JSON, names no
	 * session.
	 */
	private Mono<Void> deliver(BridgedSession session, UpstreamRequest request, JsonRpcPayload payload,
			Function<UpstreamResponse, Mono<Void>> handler, boolean opened) {
		HttpHeaders headers = opened ? sessionHeader(session) : new HttpHeaders();
		boolean waits = payload.messages().stream().anyMatch(message -> message.isRequest());
		PendingPost post = waits ? session.expect(payload) : null;
		Mono<Void> posted = session.endpoint()
			.flatMap(endpoint -> postToEndpoint(endpoint, request))
			.doOnSuccess(done -> request.onWritten().run());
		if (post == null) {
			return posted.then(Mono.defer(() -> handler.apply(LocalUpstreamResponse.empty(HttpStatus.ACCEPTED))));
		}
		Flux<Void> answered = post.messages().switchOnFirst((first, all) -> {
			if (!first.hasValue()) {
				return all.then();
			}
			if (first.get().response() && post.requests() == 1 && !payload.batch()) {
				// an initialize refused with an error ends its session: the client is not handed its id
				return handler.apply(LocalUpstreamResponse.json(first.get().error() ? new HttpHeaders() : headers,
						first.get().json()));
			}
			return handler.apply(LocalUpstreamResponse.eventStream(headers, all.map(PendingPost.Routed::event)));
		});
		Mono<Void> delivered = posted.thenMany(answered).then().doFinally(signal -> session.forget(post));
		if (!opened) {
			return delivered;
		}
		return delivered.doFinally(signal -> {
			if (signal != SignalType.ON_COMPLETE || !post.initialized()) {
				session.end(signal == SignalType.CANCEL
						? "its initialize was cancelled (it timed out, or the client went away)"
						: "its initialize did not succeed");
			}
		});
	}

	/** One client message to the endpoint; fails unless it is accepted (2xx). */
	private Mono<Void> postToEndpoint(URI endpoint, UpstreamRequest request) {
		HttpHeaders headers = upstreamHeaders(request.headers(), true);
		byte[] body = request.body();
		return UpstreamHttp.exchange(httpClient, HttpMethod.POST, endpoint, headers, body, null,
				(response, responseBody) -> {
					int status = response.status().code();
					Mono<Void> drained = responseBody.then();
					if (status >= 200 && status <= 299) {
						return drained;
					}
					return drained.then(Mono.error(new UpstreamTransportException(Kind.UPSTREAM_FAILED,
							"upstream_error_status", "MCP server '" + serverId + "' refused the message with HTTP "
									+ status + ".")));
				});
	}

	/** The client's upstream headers without those of its exchange with the relay. */
	private static HttpHeaders upstreamHeaders(HttpHeaders requestHeaders, boolean withBody) {
		HttpHeaders headers = new HttpHeaders();
		headers.addAll(requestHeaders);
		NOT_FOR_THE_UPSTREAM.forEach(headers::remove);
		if (withBody) {
			headers.set(HttpHeaders.ACCEPT, "application/json, text/event-stream");
		}
		else {
			headers.remove(HttpHeaders.CONTENT_TYPE);
		}
		return headers;
	}

	private static HttpHeaders sessionHeader(BridgedSession session) {
		HttpHeaders headers = new HttpHeaders();
		headers.set("Mcp-Session-Id", session.id());
		return headers;
	}

	private JsonRpcPayload parse(byte[] body) {
		try {
			return JsonRpcParser.parse(body);
		}
		catch (JsonRpcParseException ex) {
			// the relay parsed the body before; a body the transport cannot read again is its own failure
			throw new IllegalStateException("a POST body the relay accepted does not parse", ex);
		}
	}

	/** Sessions open now; for tests and metrics. */
	public int openSessions() {
		return sessions.size();
	}

	/** Ends every session and its upstream stream. */
	@Override
	public void close() {
		sessions.close();
	}

	/**
	 * Ends every session and its upstream stream because a reload removed or changed the server: a POST still waiting
	 * for its answer fails with {@code failure}.
	 *
	 * @return the ids of the sessions it ended, for the bridge that replaces this one ({@link #endedBefore})
	 */
	public Set<String> retire(UpstreamTransportException failure) {
		return sessions.retire(failure);
	}

	/**
	 * The sessions of the bridge this one replaces, which a reload ended: a request naming one is answered
	 * {@code session_ended} (404) rather than {@code session_not_found}.
	 */
	public void endedBefore(Set<String> ids) {
		sessions.endedBefore(ids);
	}

}
