package dev.mcprelay.testsupport;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.QueryStringDecoder;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;

/**
 * A scripted legacy HTTP+SSE MCP server (2024-11-05 transport) on 127.0.0.1, for the faults no real server produces
 * on demand. {@code GET /sse} opens a session's stream, whose first event names {@code /messages?sessionId=<n>}
 * (or, as {@link #endpointForm} says, a JSON payload, a header, or nothing at all); {@code POST /messages} accepts a
 * message (202) and answers each request on that session's stream with a result echoing its method and id, after a
 * random delay of up to {@link #answerJitter}. {@link #onRequest} changes what happens to a request by method.
 */
public final class ScriptedLegacySseServer implements AutoCloseable {

	private static final ObjectMapper JSON = new ObjectMapper();

	/** How a new stream names its endpoint. */
	public enum EndpointForm {
		/** {@code event: endpoint} with a relative URL, as the transport prescribes. */
		EVENT,
		/** a message event with {@code {"endpoint": "…"}}. */
		JSON_ENDPOINT,
		/** an {@code X-Session-Id} response header, and no event. */
		HEADER,
		/**
		 * an {@code Mcp-Session-Id} response header naming another session (whose conventional endpoint,
		 * {@code messages?sessionId=…}, this server does not know), and the endpoint event naming the right one.
		 */
		HEADER_AND_EVENT,
		/** as {@link #HEADER_AND_EVENT}, with a comment ({@code : hello}) before the endpoint event. */
		HEADER_COMMENT_THEN_EVENT,
		/** as {@link #HEADER_AND_EVENT}, with a {@code retry:} field alone before the endpoint event. */
		HEADER_RETRY_THEN_EVENT,
		/** as {@link #HEADER_AND_EVENT}, with the endpoint event half a second after the stream opened. */
		HEADER_THEN_LATE_EVENT,
		/** nothing: the stream stays open and silent. */
		NONE
	}

	/** What the server does with a request. */
	public enum Reaction {
		/** answers it on the stream */
		ANSWER,
		/** sends two progress notifications for its token, then answers */
		PROGRESS_THEN_ANSWER,
		/** accepts it and never answers */
		IGNORE,
		/** refuses the POST with 500 */
		REFUSE_500,
		/** accepts it, then closes the session's stream */
		DROP_STREAM,
		/** answers it on the stream with a JSON-RPC error */
		ERROR,
		/**
		 * sends {@link #floodSize} progress notifications for it and then its answer on the stream, and only then, once
		 * the test {@link #releaseAccepts() releases} it, accepts the POST (202)
		 */
		FLOOD_BEFORE_ACCEPTING
	}

	/** One session as the server sees it. */
	public static final class Session {

		final Sinks.Many<String> events = Sinks.many().unicast().onBackpressureBuffer();

		final List<String> received = new CopyOnWriteArrayList<>();

		volatile boolean closed;

		/** Sends a message on the stream (a server request or notification); safe from any thread. */
		public synchronized void send(String json) {
			events.tryEmitNext("event: message\ndata: " + json + "\n\n");
		}

		/** Sends a comment line on the stream ({@code : ping}), as servers do to keep it alive; safe from any thread. */
		public synchronized void comment(String text) {
			events.tryEmitNext(": " + text + "\n\n");
		}

		synchronized void end() {
			events.tryEmitComplete();
		}

		/** The messages the client POSTed, in order. */
		public List<String> received() {
			return List.copyOf(received);
		}

		/** Whether the client side (the relay) closed the stream. */
		public boolean closed() {
			return closed;
		}

	}

	private final Map<String, Session> sessions = new ConcurrentHashMap<>();

	/** Ids handed out; {@link #opened} counts a stream only once its session is {@link #last}. */
	private final AtomicInteger ids = new AtomicInteger();

	private volatile Session last;

	private final AtomicInteger opened = new AtomicInteger();

	private final Map<String, Reaction> reactions = new ConcurrentHashMap<>();

	private final List<String> seenHeaders = new CopyOnWriteArrayList<>();

	public volatile EndpointForm endpointForm = EndpointForm.EVENT;

	public volatile Duration answerJitter = Duration.ZERO;

	/** When set, every stream opened from now on sends a keepalive comment ({@code : ping}) this often. */
	public volatile Duration keepalives;

	/** How many progress notifications {@link Reaction#FLOOD_BEFORE_ACCEPTING} sends before the answer. */
	public volatile int floodSize = 1100;

	private volatile Sinks.Empty<Void> accepting = Sinks.empty();

	private final DisposableServer server;

	public ScriptedLegacySseServer() {
		this.server = HttpServer.create().host("127.0.0.1").port(0).route(routes -> routes.get("/sse", (request, response) -> {
			String id = String.valueOf(ids.incrementAndGet());
			Session session = new Session();
			sessions.put(id, session);
			last = session;
			// counted once findable: a test that sees the count go up finds the session (lastSession)
			opened.incrementAndGet();
			request.requestHeaders().forEach(header -> seenHeaders.add(header.getKey() + ": " + header.getValue()));
			String endpointEvent = "event: endpoint\ndata: /messages?sessionId=" + id + "\n\n";
			Flux<String> first = switch (endpointForm) {
				case EVENT, HEADER_AND_EVENT -> Flux.just(endpointEvent);
				case JSON_ENDPOINT -> Flux.just("data: {\"endpoint\":\"/messages?sessionId=" + id + "\"}\n\n");
				case HEADER, NONE -> Flux.just(": opened\n\n");
				case HEADER_COMMENT_THEN_EVENT -> Flux.just(": hello\n\n", endpointEvent);
				case HEADER_RETRY_THEN_EVENT -> Flux.just("retry: 1000\n\n", endpointEvent);
				case HEADER_THEN_LATE_EVENT -> Mono.delay(Duration.ofMillis(500)).thenReturn(endpointEvent).flux();
			};
			if (endpointForm == EndpointForm.HEADER) {
				response.header("X-Session-Id", id);
			}
			if (endpointForm.name().startsWith("HEADER_")) {
				response.header("Mcp-Session-Id", "elsewhere-" + id);
			}
			Duration every = keepalives;
			if (every != null) {
				Flux.interval(every, every).takeWhile(tick -> !session.closed).subscribe(tick -> session.comment("ping"));
			}
			return response.header("Content-Type", "text/event-stream")
				.sendString(first.concatWith(session.events.asFlux())
					.doFinally(signal -> session.closed = true), StandardCharsets.UTF_8)
				.then();
		}).post("/messages", (request, response) -> {
			String id = new QueryStringDecoder(request.uri()).parameters()
				.getOrDefault("sessionId", List.of(""))
				.get(0);
			request.requestHeaders().forEach(header -> seenHeaders.add(header.getKey() + ": " + header.getValue()));
			return request.receive().aggregate().asString(StandardCharsets.UTF_8).flatMap(body -> {
				Session session = sessions.get(id);
				if (session == null) {
					return response.status(HttpResponseStatus.NOT_FOUND).sendString(Mono.just("no session")).then();
				}
				session.received.add(body);
				JsonNode message = read(body);
				if (message.isArray()) {
					// a batch: each request answered (or failed, with ERROR) on the stream, in order, once accepted
					return response.status(202).sendString(Mono.just("Accepted")).then().doOnSuccess(done -> {
						for (JsonNode element : message) {
							if (element.has("id") && element.has("method")) {
								boolean fails = reactions.get(element.get("method").asText()) == Reaction.ERROR;
								session.send(fails ? errorTo(element) : answerTo(element));
							}
						}
					});
				}
				Reaction reaction = message.has("id") && message.has("method")
						? reactions.getOrDefault(message.get("method").asText(), Reaction.ANSWER) : null;
				if (reaction == Reaction.REFUSE_500) {
					return response.status(500).sendString(Mono.just("boom")).then();
				}
				Mono<Void> accepted = response.status(202).sendString(Mono.just("Accepted")).then();
				if (reaction == null || reaction == Reaction.IGNORE) {
					return accepted;
				}
				if (reaction == Reaction.DROP_STREAM) {
					return accepted.doOnSuccess(done -> session.end());
				}
				if (reaction == Reaction.ERROR) {
					return accepted.doOnSuccess(done -> session.send(errorTo(message)));
				}
				if (reaction == Reaction.FLOOD_BEFORE_ACCEPTING) {
					for (int step = 1; step <= floodSize; step++) {
						session.send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{"
								+ "\"progressToken\":" + message.at("/params/_meta/progressToken") + ",\"progress\":" + step
								+ "}}");
					}
					session.send(answerTo(message));
					return accepting.asMono().then(accepted);
				}
				long delay = answerJitter.isZero() ? 0 : (long) (Math.random() * answerJitter.toMillis());
				Mono.delay(Duration.ofMillis(delay)).subscribe(tick -> {
					if (reaction == Reaction.PROGRESS_THEN_ANSWER) {
						JsonNode token = message.at("/params/_meta/progressToken");
						for (int step = 1; step <= 2; step++) {
							session.send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{"
									+ "\"progressToken\":" + token + ",\"progress\":" + step + ",\"total\":2}}");
						}
					}
					session.send(answerTo(message));
				});
				return accepted;
			});
		})).bindNow();
	}

	/** What the server answers a request: {@code initialize} as a 2024-11-05 server, anything else with an echo. */
	private static String answerTo(JsonNode request) {
		String method = request.get("method").asText();
		if (method.equals("initialize")) {
			return "{\"jsonrpc\":\"2.0\",\"id\":" + request.get("id") + ",\"result\":{\"protocolVersion\":\"2024-11-05\","
					+ "\"capabilities\":{\"tools\":{}},\"serverInfo\":{\"name\":\"scripted-legacy\",\"version\":\"1\"}}}";
		}
		return "{\"jsonrpc\":\"2.0\",\"id\":" + request.get("id") + ",\"result\":{\"method\":\"" + method
				+ "\",\"echoedId\":" + request.get("id") + "}}";
	}

	private static String errorTo(JsonNode request) {
		return "{\"jsonrpc\":\"2.0\",\"id\":" + request.get("id")
				+ ",\"error\":{\"code\":-32603,\"message\":\"scripted failure\"}}";
	}

	private static JsonNode read(String body) {
		try {
			return JSON.readTree(body);
		}
		catch (Exception ex) {
			return JSON.createObjectNode();
		}
	}

	/** From now on, requests of this method get this reaction. */
	public void onRequest(String method, Reaction reaction) {
		reactions.put(method, reaction);
	}

	/** Accepts the POSTs {@link Reaction#FLOOD_BEFORE_ACCEPTING} holds, and those to come. */
	public void releaseAccepts() {
		accepting.tryEmitEmpty();
	}

	/** Back to answering everything at once, endpoints as events. */
	public void reset() {
		reactions.clear();
		endpointForm = EndpointForm.EVENT;
		answerJitter = Duration.ZERO;
		keepalives = null;
		floodSize = 1100;
		accepting = Sinks.empty();
		seenHeaders.clear();
	}

	/** The session the server opened last. */
	public Session lastSession() {
		return last;
	}

	/** How many streams were opened so far. */
	public int streamsOpened() {
		return opened.get();
	}

	/** Every request header the server saw, as {@code name: value}. */
	public List<String> seenHeaders() {
		return List.copyOf(seenHeaders);
	}

	public String url() {
		return "http://127.0.0.1:" + server.port() + "/sse";
	}

	@Override
	public void close() {
		server.disposeNow();
	}

}
