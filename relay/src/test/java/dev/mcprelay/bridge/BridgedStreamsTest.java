package dev.mcprelay.bridge;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

import org.junit.jupiter.api.Test;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.jsonrpc.JsonRpcParser;
import dev.mcprelay.session.SessionKey;
import dev.mcprelay.session.SessionState;
import dev.mcprelay.session.SessionStore;
import dev.mcprelay.sse.SseEventWriter;
import dev.mcprelay.transport.LocalUpstreamResponse;
import dev.mcprelay.transport.UpstreamRequest;
import dev.mcprelay.transport.UpstreamResponse;
import dev.mcprelay.transport.UpstreamTransport;
import dev.mcprelay.transport.UpstreamTransportException;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

/**
 * A 2026-07-28 server's answers as event streams (which its transport allows for any request), through the bridge:
 * a stream that ends before the answer of the request it answers fails as a stream that broke off (review K, finding
 * 3: the 2025 client cannot resume it), and a {@code server/discover} answered as an event stream opens the session
 * as a JSON one does (finding 4).
 */
class BridgedStreamsTest {

	private static final byte[] PROGRESS = SseEventWriter.message("{\"jsonrpc\":\"2.0\",\"method\":"
			+ "\"notifications/progress\",\"params\":{\"progressToken\":\"t\",\"progress\":1}}");

	/** How a 2026-07-28 server's answer to a 2025 client's request is turned; a round of input asks nothing here. */
	private static final BridgedAnswers.Turn ANSWERING = new BridgedAnswers.Turn(
			message -> SessionResults.toSession(message, "f"),
			message -> SessionResults.asksForInput(message) ? Flux.<byte[]>empty() : null, true);

	/** What the bridged sessions of a relay have in flight, of the tests whose bridges share no store. */
	private static final BridgeFlights FLIGHTS = new BridgeFlights(new Kept(), Duration.ofHours(1));

	private static final byte[] HALF_AN_EVENT = "data: {\"jsonrpc\":\"2.0\",\"id\":7,\"res"
		.getBytes(StandardCharsets.UTF_8);

	@Test
	void aRequestsStreamThatEndsBeforeItsAnswerFailsAsAStreamThatBrokeOff() {
		UpstreamResponse crashed = LocalUpstreamResponse.eventStream(new HttpHeaders(),
				Flux.just(PROGRESS, HALF_AN_EVENT));
		AtomicReference<UpstreamResponse> relayed = new AtomicReference<>();
		BridgedAnswers.relay(crashed, "f", 65536, new HttpHeaders(), any -> true, Mono.never(), ANSWERING,
				response -> {
					relayed.set(response);
					return Mono.empty();
				}).block(Duration.ofSeconds(5));

		StepVerifier.create(relayed.get().body().map(buffer -> {
			String text = buffer.toString(StandardCharsets.UTF_8);
			DataBufferUtils.release(buffer);
			return text;
		}))
			.assertNext(event -> assertThat(event).contains("notifications/progress"))
			.expectErrorSatisfies(error -> assertThat(error).isInstanceOf(UpstreamTransportException.class)
				.extracting(failure -> ((UpstreamTransportException) failure).reason())
				.isEqualTo("upstream_stream_broken"))
			.verify(Duration.ofSeconds(5));

		UpstreamResponse retried = LocalUpstreamResponse.eventStream(new HttpHeaders(), Flux.just(PROGRESS));
		StepVerifier.create(BridgedAnswers.asEvents(retried, "f", 65536, ANSWERING))
			.expectNextCount(1)
			.expectErrorMatches(error -> error instanceof UpstreamTransportException failure
					&& failure.reason().equals("upstream_stream_broken"))
			.verify(Duration.ofSeconds(5));
	}

	@Test
	void aStreamWithItsAnswerEndsAsItCame() {
		UpstreamResponse answered = LocalUpstreamResponse.eventStream(new HttpHeaders(), Flux.just(PROGRESS,
				SseEventWriter.message("{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"content\":[]}}")));
		StepVerifier.create(BridgedAnswers.asEvents(answered, "f", 65536, ANSWERING))
			.expectNextCount(2)
			.verifyComplete();
	}

	@Test
	void aDiscoveryAnsweredAsAnEventStreamOpensTheSession() {
		UpstreamTransport server = new Answering(request -> LocalUpstreamResponse.eventStream(new HttpHeaders(),
				Flux.just(PROGRESS, SseEventWriter.message("{\"jsonrpc\":\"2.0\",\"id\":\"mcp-relay-discover\","
						+ "\"result\":{\"supportedVersions\":[\"2026-07-28\"],\"capabilities\":{\"tools\":{}},"
						+ "\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"streamer\",\"version\":"
						+ "\"1\"}}}}"))));
		SessionBridge bridge = new SessionBridge(server, "f", new ServerVersions("f", List.of()),
				new BridgeSessions(new Kept(), "f", FLIGHTS), 65536, Duration.ofSeconds(5));
		AtomicReference<String> session = new AtomicReference<>();
		AtomicReference<JsonNode> initialized = new AtomicReference<>();

		bridge.open(initialize(), response -> {
			session.set(response.headers().getFirst("Mcp-Session-Id"));
			return DataBufferUtils.join(response.body()).map(buffer -> {
				try {
					initialized.set(JsonRpcParser.mapper().readTree(buffer.toString(StandardCharsets.UTF_8)));
				}
				catch (java.io.IOException ex) {
					throw new IllegalStateException(ex);
				}
				finally {
					DataBufferUtils.release(buffer);
				}
				return buffer;
			}).then();
		}, null).block(Duration.ofSeconds(5));

		assertThat(session.get()).startsWith(BridgeSessions.PREFIX);
		assertThat(initialized.get().at("/result/serverInfo/name").asText()).as("%s", initialized.get())
			.isEqualTo("streamer");
		assertThat(initialized.get().at("/result/protocolVersion").asText()).isEqualTo("2025-11-25");
	}

	@Test
	void aDiscoveryStreamThatEndsBeforeItsAnswerFailsTheInitialize() {
		UpstreamTransport server = new Answering(
				request -> LocalUpstreamResponse.eventStream(new HttpHeaders(), Flux.just(PROGRESS)));
		SessionBridge bridge = new SessionBridge(server, "f", new ServerVersions("f", List.of()),
				new BridgeSessions(new Kept(), "f", FLIGHTS), 65536, Duration.ofSeconds(5));

		StepVerifier.create(bridge.open(initialize(), response -> response.releaseBody(), null))
			.expectErrorMatches(error -> error instanceof UpstreamTransportException failure
					&& failure.reason().equals("bridge_discover_failed")
					&& failure.getMessage().contains("before the answer"))
			.verify(Duration.ofSeconds(5));
	}

	/**
	 * Review K, finding 2: a reload that changes a server makes it a new bridge; what the old one started goes on and is
	 * reached through the new one: the client's answer to a round asked before the reload, its DELETE of a session whose
	 * GET stream opened before.
	 */
	@Test
	void whatABridgeStartedIsReachedThroughTheBridgeAReloadMadeForTheSameServer() {
		UpstreamTransport server = new Answering(request -> {
			String body = new String(request.body(), StandardCharsets.UTF_8);
			if (body.contains("server/discover")) {
				return LocalUpstreamResponse.json(new HttpHeaders(), ("{\"jsonrpc\":\"2.0\",\"id\":\"mcp-relay-discover\","
						+ "\"result\":{\"supportedVersions\":[\"2026-07-28\"],\"capabilities\":{\"tools\":"
						+ "{\"listChanged\":true}}}}").getBytes(StandardCharsets.UTF_8));
			}
			if (body.contains("subscriptions/listen")) {
				return LocalUpstreamResponse.eventStream(new HttpHeaders(), Flux.never());
			}
			String answer = body.contains("inputResponses")
					? "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"sent\"}]}}"
					: "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"resultType\":\"input_required\",\"requestState\":"
							+ "\"s\",\"inputRequests\":{\"confirm\":{\"method\":\"elicitation/create\",\"params\":"
							+ "{\"message\":\"Send the weekly report?\",\"requestedSchema\":{\"type\":\"object\"}}}}}}";
			return LocalUpstreamResponse.json(new HttpHeaders(), answer.getBytes(StandardCharsets.UTF_8));
		});
		Kept store = new Kept();
		// the relay's one BridgeFlights, which each bridge it makes for the server is given
		BridgeFlights flights = new BridgeFlights(store, Duration.ofHours(1));
		SessionBridge beforeTheReload = new SessionBridge(server, "f", new ServerVersions("f", List.of()),
				new BridgeSessions(store, "f", flights), 65536, Duration.ofSeconds(30));
		SessionBridge afterTheReload = new SessionBridge(server, "f", new ServerVersions("f", List.of()),
				new BridgeSessions(store, "f", flights), 65536, Duration.ofSeconds(30));
		AtomicReference<String> session = new AtomicReference<>();
		beforeTheReload.open(initialize(), response -> {
			session.set(response.headers().getFirst("Mcp-Session-Id"));
			return response.releaseBody();
		}, null).block(Duration.ofSeconds(5));
		AtomicReference<UpstreamResponse> call = new AtomicReference<>();
		beforeTheReload.send(inSession(session.get(), HttpMethod.POST, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":"
				+ "\"tools/call\",\"params\":{\"name\":\"report\",\"arguments\":{}}}"), response -> {
					call.set(response);
					return Mono.never(); // as the relay's handler: done once the client read the whole answer
				}).subscribe();
		AtomicReference<UpstreamResponse> stream = new AtomicReference<>();
		beforeTheReload.listen(inSession(session.get(), HttpMethod.GET, null), response -> {
			stream.set(response);
			return Mono.never();
		}).subscribe();

		StepVerifier.create(texts(call.get()))
			.assertNext(asked -> {
				assertThat(asked).contains("elicitation/create");
				String id = JsonRpcParser.mapper().createObjectNode().textNode(asked.replaceAll("(?s).*\"id\":\"([^\"]+)\".*",
						"$1")).asText();
				assertThat(afterTheReload.awaitedAnswers()).isEqualTo(1);
				AtomicReference<UpstreamResponse> accepted = new AtomicReference<>();
				afterTheReload.send(inSession(session.get(), HttpMethod.POST, "{\"jsonrpc\":\"2.0\",\"id\":\"" + id
						+ "\",\"result\":{\"action\":\"accept\",\"content\":{}}}"), response -> {
							accepted.set(response);
							return Mono.empty();
						}).block(Duration.ofSeconds(5));
				assertThat(accepted.get().statusCode().value()).isEqualTo(202);
			})
			.assertNext(answer -> assertThat(answer).as("the round asked before the reload went on").contains("sent"))
			.expectComplete()
			.verify(Duration.ofSeconds(10));

		afterTheReload.end(inSession(session.get(), HttpMethod.DELETE, null), response -> response.releaseBody())
			.block(Duration.ofSeconds(5));
		StepVerifier.create(texts(stream.get())).as("the GET stream opened before the reload ended with its session")
			.expectComplete()
			.verify(Duration.ofSeconds(10));
	}

	/**
	 * Review K, finding 5: the client's own {@code requestState} and {@code inputResponses} never reach the server, and
	 * a server's {@code inputRequests} other than the three a 2025 client answers are refused.
	 */
	@Test
	void theClientsOwnRoundFieldsStayAndAServersUnknownInputRequestIsRefused() {
		java.util.List<String> sent = new java.util.concurrent.CopyOnWriteArrayList<>();
		UpstreamTransport server = new Answering(request -> {
			String body = new String(request.body(), StandardCharsets.UTF_8);
			sent.add(body);
			if (body.contains("server/discover")) {
				return LocalUpstreamResponse.json(new HttpHeaders(), ("{\"jsonrpc\":\"2.0\",\"id\":\"mcp-relay-discover\","
						+ "\"result\":{\"capabilities\":{}}}").getBytes(StandardCharsets.UTF_8));
			}
			return LocalUpstreamResponse.json(new HttpHeaders(), ("{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{"
					+ "\"resultType\":\"input_required\",\"inputRequests\":{\"x\":{\"method\":\"tools/call\","
					+ "\"params\":{\"name\":\"drop\"},\"result\":{}}}}}").getBytes(StandardCharsets.UTF_8));
		});
		SessionBridge bridge = new SessionBridge(server, "f", new ServerVersions("f", List.of()),
				new BridgeSessions(new Kept(), "f", FLIGHTS), 65536, Duration.ofSeconds(30));
		AtomicReference<String> session = new AtomicReference<>();
		bridge.open(initialize(), response -> {
			session.set(response.headers().getFirst("Mcp-Session-Id"));
			return response.releaseBody();
		}, null).block(Duration.ofSeconds(5));
		AtomicReference<UpstreamResponse> call = new AtomicReference<>();
		bridge.send(inSession(session.get(), HttpMethod.POST, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":"
				+ "\"tools/call\",\"params\":{\"name\":\"report\",\"requestState\":\"forged\",\"inputResponses\":"
				+ "{\"x\":{}}}}"), response -> {
					call.set(response);
					return Mono.never();
				}).subscribe();

		StepVerifier.create(texts(call.get()))
			.assertNext(answer -> assertThat(answer).contains("input_required_invalid").contains("\"id\":7"))
			.expectComplete()
			.verify(Duration.ofSeconds(10));
		assertThat(sent).hasSize(2);
		assertThat(sent.get(1)).contains("\"report\"").doesNotContain("forged").doesNotContain("inputResponses");
	}

	private static Flux<String> texts(UpstreamResponse response) {
		return response.body().map(buffer -> {
			String text = buffer.toString(StandardCharsets.UTF_8);
			DataBufferUtils.release(buffer);
			return text;
		}).filter(text -> !text.startsWith(":"));
	}

	private static UpstreamRequest inSession(String session, HttpMethod method, String body) {
		HttpHeaders headers = new HttpHeaders();
		headers.set("Mcp-Session-Id", session);
		return new UpstreamRequest("f", method, URI.create("http://127.0.0.1:1/mcp"), headers,
				body == null ? null : body.getBytes(StandardCharsets.UTF_8), "alice", null);
	}

	private static UpstreamRequest initialize() {
		byte[] body = ("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
				+ "\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"raw\",\"version\":\"1\"}}}")
			.getBytes(StandardCharsets.UTF_8);
		return new UpstreamRequest("f", HttpMethod.POST, URI.create("http://127.0.0.1:1/mcp"), new HttpHeaders(), body,
				"alice", null);
	}

	/** A server that answers every POST as {@code answer} says. */
	private record Answering(Function<UpstreamRequest, UpstreamResponse> answer) implements PostOnlyUpstream {

		@Override
		public Mono<Void> send(UpstreamRequest request, Function<UpstreamResponse, Mono<Void>> handler) {
			return Mono.defer(() -> handler.apply(answer.apply(request)));
		}


	}

	/** A session store that keeps what it is given, in memory. */
	/**
	 * What the bridges over {@code store} have in flight: one for every bridge of one relay (a reload's bridges share
	 * it), another for a bridge over another store (another replica); {@code null}: one of its own.
	 */
	static BridgeFlights flightsOf(Kept store) {
		return store == null ? new BridgeFlights(null, Duration.ofHours(1))
				: KEPT_FLIGHTS.computeIfAbsent(store, any -> new BridgeFlights(store, Duration.ofHours(1)));
	}

	private static final Map<Kept, BridgeFlights> KEPT_FLIGHTS = java.util.Collections
		.synchronizedMap(new java.util.WeakHashMap<>());

	static final class Kept implements SessionStore {

		private final Map<SessionKey, SessionState> sessions = new ConcurrentHashMap<>();

		@Override
		public Mono<Void> open(SessionKey key, String callerId) {
			return Mono.fromRunnable(() -> sessions.put(key, new SessionState(callerId, java.util.Set.of(), Map.of())));
		}

		@Override
		public Mono<SessionState> find(SessionKey key) {
			return Mono.justOrEmpty(sessions.get(key));
		}

		@Override
		public Mono<Boolean> exists(SessionKey key) {
			return Mono.just(sessions.containsKey(key));
		}

		@Override
		public Mono<Boolean> holds(SessionKey key, String member) {
			SessionState kept = sessions.get(key);
			return Mono.just(kept != null && kept.members().containsKey(member));
		}

		@Override
		public Mono<Void> expose(SessionKey key, Collection<String> tools) {
			return Mono.empty();
		}

		@Override
		public Mono<Void> join(SessionKey key, String member, String state) {
			return Mono.fromRunnable(() -> sessions.computeIfPresent(key, (k, kept) -> {
				Map<String, String> members = new java.util.HashMap<>(kept.members());
				members.put(member, state);
				return new SessionState(kept.callerId(), kept.exposedTools(), members);
			}));
		}

		@Override
		public Mono<Void> end(SessionKey key, String callerId) {
			return Mono.fromRunnable(() -> sessions.remove(key));
		}

	}

}
