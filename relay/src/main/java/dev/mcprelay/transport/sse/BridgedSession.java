package dev.mcprelay.transport.sse;

import java.net.URI;
import java.time.Duration;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpHeaders;


import dev.mcprelay.api.jsonrpc.JsonRpcErrors;
import dev.mcprelay.api.jsonrpc.JsonRpcMessage;
import dev.mcprelay.jsonrpc.JsonRpcIds;
import dev.mcprelay.jsonrpc.JsonRpcParseException;
import dev.mcprelay.jsonrpc.JsonRpcPayload;
import dev.mcprelay.jsonrpc.JsonRpcScanner;
import dev.mcprelay.sse.SseEvent;
import dev.mcprelay.text.LogText;
import dev.mcprelay.transport.HeldMessages;
import dev.mcprelay.transport.UpstreamTransportException.Kind;
import dev.mcprelay.transport.UpstreamTransportException;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.netty.http.client.HttpClient;

/**
 * One relay session bridged to a legacy HTTP+SSE server: the upstream event stream the relay opened for it, the
 * endpoint that stream named, and what waits for the stream: the client POSTs whose answers have not come ({@link WaitingPosts}), and the
 * client's GET stream ({@link ClientOutbox}).
 *
 * <p>Where the session's messages go is what the stream names first ({@link SessionEndpoint}).
 *
 * <p>Every message on the stream is routed: a response to the POST that holds its id; a progress notification to the
 * POST whose request carried its token; anything else (server requests, other notifications) to the client's GET
 * stream. A response nobody waits for any more (its POST timed out or went away) is logged and dropped. A keepalive
 * comment ({@code : ping}) belongs to the session, not to a request: it goes to the client's GET stream, the session's
 * own, so that a quiet server that is alive keeps it from going idle ({@code streaming-idle}), and never to a waiting
 * POST, whose answer may be lost however lively the session is. What waits for the client is bounded
 * ({@link HeldLimits}).
 *
 * <p>Ids (and progress tokens) compare as the server may read them ({@link JsonRpcIds}): a server that reads numbers
 * as doubles (JavaScript's {@code JSON.parse}) answers {@code 9007199254740993} under {@code 9007199254740992}, so the
 * two are one id of the session: while a request waits under one, a POST carrying the other is refused (409
 * {@code request_id_in_flight}), and an answer under the rounded id goes to the POST of the request that had it (whose
 * response stages hand it to the client under the id the client sent, {@code PendingRequests}).
 *
 * <p>When the stream ends or breaks, the session ends: every waiting POST fails with a JSON-RPC error, the client's
 * GET stream ends, and the session is forgotten, so that the client's next request gets 404 and it initializes
 * again.
 */
final class BridgedSession {

	private static final Logger log = LoggerFactory.getLogger(BridgedSession.class);

	private final String id;

	private final String callerId;

	private final String serverId;

	private final URI streamUri;

	private final long maxEventBytes;

	private final ClientOutbox outbox;

	private final HeldLimits held;

	private final WaitingPosts waiting;

	private final SessionEndpoint endpoint;

	private final Runnable onEnd;

	/** Told of each answer dropped because no POST of the session waits for it. */
	private final Runnable onUnmatchedAnswer;

	private volatile Disposable stream;

	private volatile boolean ended;

	private volatile long lastUsed = System.nanoTime();

	/** A session whose stream's header waits {@link SessionEndpoint#HEADER_GRACE} for an endpoint. */
	BridgedSession(String id, String callerId, String serverId, URI streamUri, long maxEventBytes, HeldLimits held,
			Runnable onEnd) {
		this(id, callerId, serverId, streamUri, maxEventBytes, SessionEndpoint.HEADER_GRACE, held, onEnd, () -> {
		});
	}

	/**
	 * @param headerGrace how long a session id in the stream's headers waits for the stream to name its endpoint
	 * ({@link SessionEndpoint})
	 * @param held what the session may hold for its client, and whom it tells when that is reached
	 * @param onEnd run once when the session ends, whatever ended it
	 * @param onUnmatchedAnswer told of each answer on the stream that no POST of the session waits for (dropped)
	 */
	BridgedSession(String id, String callerId, String serverId, URI streamUri, long maxEventBytes,
			Duration headerGrace, HeldLimits held, Runnable onEnd, Runnable onUnmatchedAnswer) {
		this.id = id;
		this.callerId = callerId;
		this.serverId = serverId;
		this.streamUri = streamUri;
		this.maxEventBytes = maxEventBytes;
		this.held = held;
		this.waiting = new WaitingPosts(serverId, held.maxBytes());
		this.endpoint = new SessionEndpoint(serverId, streamUri, headerGrace);
		this.outbox = new ClientOutbox(serverId, new HeldMessages(ClientOutbox.CAPACITY, held.maxBytes()),
				held.onStreamOverflow());
		this.onEnd = onEnd;
		this.onUnmatchedAnswer = onUnmatchedAnswer;
	}

	String id() {
		return id;
	}

	String callerId() {
		return callerId;
	}

	ClientOutbox outbox() {
		return outbox;
	}

	boolean isEnded() {
		return ended;
	}

	void touch() {
		lastUsed = System.nanoTime();
	}

	/** Whether nothing used the session for {@code idle}: no request, no waiting POST, no GET stream attached. */
	boolean idleFor(Duration idle) {
		return waiting.isEmpty() && !outbox.isAttached() && System.nanoTime() - lastUsed > idle.toNanos();
	}

	/**
	 * Opens the upstream event stream with {@code headers} and completes with the endpoint it names. Fails when the
	 * stream cannot be opened or names no endpoint before it ends; the caller bounds the wait.
	 */
	Mono<URI> open(HttpClient httpClient, HttpHeaders headers) {
		stream = UpstreamEventStream
			.read(httpClient, serverId, streamUri, headers, maxEventBytes,
					endpoint::header, this::onEvent)
			.subscribe(null, this::streamFailed, this::streamEnded);
		return endpoint.uri();
	}

	/** The endpoint, once known. */
	Mono<URI> endpoint() {
		return endpoint.uri();
	}

	/**
	 * Registers a POST's requests before it is sent, so that no answer can come before its place exists.
	 *
	 * @throws UpstreamTransportException when a request's id is already waiting in this session (409)
	 */
	PendingPost expect(JsonRpcPayload payload) {
		PendingPost post = waiting.expect(payload, this::answerOverflowed);
		if (ended) {
			forget(post);
			throw sessionEnded();
		}
		return post;
	}

	/** The POST no longer waits (answered, timed out, or its client went away). */
	void forget(PendingPost post) {
		waiting.forget(post);
	}

	/** Ends the session: the upstream stream is closed, waiting POSTs fail, the client's GET stream ends. */
	void end(String why) {
		end(why, new UpstreamTransportException(Kind.UPSTREAM_FAILED, "upstream_stream_ended",
				"The event stream of MCP server '" + serverId + "' ended (" + why + ") before the answer came; the "
						+ "session is over, initialize a new one."));
	}

	/** Ends the session as {@link #end(String)} does, its waiting POSTs failing with {@code failure}. */
	void end(String why, UpstreamTransportException failure) {
		if (ended) {
			return;
		}
		ended = true;
		log.debug("A session of '{}' ends: {}", serverId, why);
		endpoint.close();
		Disposable open = stream;
		if (open != null) {
			open.dispose();
		}
		endpoint.fail(sessionEnded());
		waiting.failAll(failure);
		outbox.close();
		onEnd.run();
	}

	private UpstreamTransportException sessionEnded() {
		return new UpstreamTransportException(Kind.UNKNOWN_SESSION, "session_ended",
				"This MCP session of server '" + serverId + "' has ended; initialize a new one.");
	}

	/** A POST's answers overflowed what the session may hold: reported, and the failure that ends the POST. */
	private RuntimeException answerOverflowed() {
		String bound = PendingPost.CAPACITY + " messages or " + held.maxBytes() + " bytes";
		log.warn("A session of '{}' held as much for one client request as it may ({}) before the client took it; "
				+ "the request is answered with an error (held_messages_full)", serverId, bound);
		held.onAnswerOverflow().run();
		return new UpstreamTransportException(Kind.HELD_MESSAGES_FULL, "held_messages_full", "MCP server '" + serverId
				+ "' sent more for this request than the relay holds for a client at once (" + bound + ") before the "
				+ "client took it; its answer is lost, send the request again.");
	}

	private void onEvent(SseEvent event) {
		if (!endpoint.known()) {
			try {
				if (endpoint.offer(event)) {
					return;
				}
			}
			catch (IllegalArgumentException ex) {
				endpoint.fail(new UpstreamTransportException(Kind.UPSTREAM_FAILED, "upstream_bad_endpoint",
						"MCP server '" + serverId + "' named an endpoint the relay cannot use: " + ex.getMessage() + "."));
				end("no usable endpoint");
				return;
			}
		}
		else if (endpoint.namedLate(event)) {
			return;
		}
		if (event.isComment()) {
			keepalive(event.raw());
			return;
		}
		if (!event.isMessage()) {
			return;
		}
		byte[] data = event.dataBytes();
		JsonRpcPayload payload;
		try {
			payload = JsonRpcScanner.scan(data);
		}
		catch (JsonRpcParseException ex) {
			log.warn("A session of '{}' got an event that is no JSON-RPC message ({}); it was dropped", serverId,
					ex.getMessage());
			return;
		}
		for (JsonRpcMessage message : payload.messages()) {
			route(message, payload.batch() ? JsonRpcErrors.toBytes(message.node()) : data);
		}
	}

	private void route(JsonRpcMessage message, byte[] json) {
		if (message.isResponse()) {
			if (!waiting.answer(message, json)) {
				onUnmatchedAnswer.run();
				log.warn("A session of '{}' got an answer with id {} that nothing waits for (no POST of the session "
						+ "sent that id, or its request timed out or was cancelled); it was dropped", serverId,
						LogText.json(message.id()));
			}
			return;
		}
		if (!message.isRequest() && waiting.progress(message, json)) {
			return;
		}
		outbox.offer(json);
	}

	/** The server is alive: the client's GET stream, the session's own, hears of it. */
	private void keepalive(byte[] comment) {
		outbox.keepalive(comment);
	}

	private void streamFailed(Throwable error) {
		endpoint.fail(error);
		log.warn("The event stream of a session of '{}' broke ({}); the session ends", serverId,
				error.getClass().getSimpleName());
		end("it broke");
	}

	private void streamEnded() {
		endpoint.fail(new UpstreamTransportException(Kind.UPSTREAM_FAILED, "upstream_no_endpoint",
				"MCP server '" + serverId + "' closed its event stream without naming an endpoint."));
		log.debug("The event stream of a session of '{}' ended; the session ends", serverId);
		end("the server closed it");
	}

}
