package dev.mcprelay.bridge;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import org.junit.jupiter.api.Test;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;

import dev.mcprelay.security.RelayMac;
import dev.mcprelay.transport.LocalUpstreamResponse;
import dev.mcprelay.transport.UpstreamRequest;
import dev.mcprelay.transport.UpstreamResponse;
import dev.mcprelay.transport.UpstreamTransport;
import reactor.core.publisher.Mono;

/**
 * Review 46c, MED 5: a 400 under id null re-opened direction 2's upstream session whatever it refused, so a request
 * the server refuses for its own content (the TypeScript SDK v1's "Parse error: Invalid JSON-RPC message" for an
 * object {@code progressToken}) opened one new session per request, and none was ever ended. Against a scripted 2025
 * server that keeps its sessions as a real one does (a 400 "No valid session ID provided" in a session it does not
 * know, a 400 parse error for a message its schema refuses, a DELETE ends a session).
 */
class ForgottenSessionsTest {

	private static final String META = "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
			+ "\"io.modelcontextprotocol/clientCapabilities\":{},\"io.modelcontextprotocol/clientInfo\":"
			+ "{\"name\":\"forgetful\",\"version\":\"1\"}}";

	/** A tools/list the server refuses for its content: its progressToken is an object. */
	private static final String REFUSED = "{\"jsonrpc\":\"2.0\",\"id\":ID,\"method\":\"tools/list\",\"params\":{"
			+ "\"_meta\":{\"progressToken\":{\"x\":1},\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
			+ "\"io.modelcontextprotocol/clientCapabilities\":{},\"io.modelcontextprotocol/clientInfo\":"
			+ "{\"name\":\"forgetful\",\"version\":\"1\"}}}}";

	private static final String LIST = "{\"jsonrpc\":\"2.0\",\"id\":ID,\"method\":\"tools/list\",\"params\":{" + META
			+ "}}";

	@Test
	void aRequestTheServerRefusesForItsContentIsHandedOnInTheSameSession() throws Exception {
		SessionServer server = new SessionServer();
		VersionBridge bridge = bridge(server);
		for (int request = 1; request <= 5; request++) {
			String refused = send(bridge, REFUSED.replace("ID", String.valueOf(request))).get(30, TimeUnit.SECONDS);
			assertThat(refused).as("the server's own refusal: %s", refused).startsWith("400 ")
				.contains("Invalid JSON-RPC message");
		}
		assertThat(server.opened).as("one session for the client, whatever its requests").hasValue(1);
		assertThat(server.ended).isEmpty();
		String listed = send(bridge, LIST.replace("ID", "9")).get(30, TimeUnit.SECONDS);
		assertThat(listed).as("%s", listed).startsWith("200 ").contains("\"tools\":[]");
		assertThat(server.opened).hasValue(1);
	}

	@Test
	void aSessionTheServerForgotIsOpenedAgainOnceAndTheOldOneEnded() throws Exception {
		SessionServer server = new SessionServer();
		VersionBridge bridge = bridge(server);
		assertThat(send(bridge, LIST.replace("ID", "1")).get(30, TimeUnit.SECONDS)).startsWith("200 ");
		String first = server.live.iterator().next();
		server.live.clear(); // the server restarted: it knows no session

		String listed = send(bridge, LIST.replace("ID", "2")).get(30, TimeUnit.SECONDS);
		assertThat(listed).as("%s", listed).startsWith("200 ").contains("\"tools\":[]");
		assertThat(server.opened).as("opened again, once").hasValue(2);
		assertThat(server.ended).as("the session replaced is ended").containsExactly(first);

		// the refused request in the new session neither opens nor ends one
		assertThat(send(bridge, REFUSED.replace("ID", "3")).get(30, TimeUnit.SECONDS)).startsWith("400 ");
		assertThat(server.opened).hasValue(2);
		assertThat(server.ended).containsExactly(first);
	}

	/**
	 * Review 46h, N3: a server that answers a JSON-RPC error with HTTP 404 in a session it knows (the TypeScript SDK
	 * v2 maps "Method not found" so on its 2026 path; scripted here): every such answer re-opened the session, none
	 * was ended, and the client got the relay's -32603 {@code upstream_error_status}. Now the 404 is the server's
	 * answer, handed on under the client's id, in the same session.
	 */
	@Test
	void aNotFoundThatAnswersTheRequestIsHandedOnInTheSameSession() throws Exception {
		SessionServer server = new SessionServer();
		VersionBridge bridge = bridge(server);
		assertThat(send(bridge, LIST.replace("ID", "1")).get(30, TimeUnit.SECONDS)).startsWith("200 ");
		for (int request = 2; request <= 6; request++) {
			String answered = send(bridge, NOPE.replace("ID", String.valueOf(request))).get(30, TimeUnit.SECONDS);
			assertThat(answered).as("the server's own answer: %s", answered).startsWith("404 ").contains("-32601")
				.contains("\"id\":" + request);
		}
		assertThat(server.opened).as("one session for the client").hasValue(1);
		assertThat(server.ended).isEmpty();
	}

	/** A server that says "Session not found" with a 404 after a restart: opened again once, the old one ended. */
	@Test
	void aSessionTheServerForgotAndSaysSoWithANotFoundIsOpenedAgainOnceAndTheOldOneEnded() throws Exception {
		SessionServer server = new SessionServer();
		server.forgottenStatus = HttpStatus.NOT_FOUND;
		VersionBridge bridge = bridge(server);
		assertThat(send(bridge, LIST.replace("ID", "1")).get(30, TimeUnit.SECONDS)).startsWith("200 ");
		String first = server.live.iterator().next();
		server.live.clear(); // the server restarted: it knows no session

		String listed = send(bridge, LIST.replace("ID", "2")).get(30, TimeUnit.SECONDS);
		assertThat(listed).as("%s", listed).startsWith("200 ").contains("\"tools\":[]");
		assertThat(server.opened).as("opened again, once").hasValue(2);
		assertThat(server.ended).as("the session replaced is ended").containsExactly(first);
	}

	/**
	 * Review 46h, N4: after a server's restart, the client's exchanges that found its session forgotten each opened a
	 * session (concurrent listens: 20 listens, 3 sessions, 2 left at the server). One that finds the session already
	 * replaced in the store (another exchange of the client's re-opened it first) takes that one: the second
	 * re-opening below stands for a listen whose ping ended after the first listen's re-opening.
	 */
	@Test
	void exchangesThatFindOneSessionForgottenOpenOneSession() throws Exception {
		SessionServer server = new SessionServer();
		UpstreamSessions sessions = new UpstreamSessions(server, "f", new ServerVersions("f", List.of("2025-11-25")),
				new BridgedStreamsTest.Kept(), 65536, Duration.ofSeconds(60));
		byte[] body = LIST.replace("ID", "1").getBytes(StandardCharsets.UTF_8);
		ModernClient client = ModernClient.of("alice", (com.fasterxml.jackson.databind.node.ObjectNode) dev.mcprelay
			.testsupport.RawHttp.json(LIST.replace("ID", "1")));
		UpstreamRequest relayed = new UpstreamRequest("f", org.springframework.http.HttpMethod.POST,
				java.net.URI.create("http://127.0.0.1:1/mcp"), new HttpHeaders(), body, "alice", null);
		UpstreamSession first = sessions.find(relayed, client).block(Duration.ofSeconds(30));
		server.live.clear(); // the server restarted: it knows no session

		UpstreamSession reopened = sessions.reopen(relayed, client, first).block(Duration.ofSeconds(30));
		UpstreamSession again = sessions.reopen(relayed, client, first).block(Duration.ofSeconds(30));
		assertThat(reopened.sessionId()).isNotEqualTo(first.sessionId());
		assertThat(again.sessionId()).as("the session already re-opened").isEqualTo(reopened.sessionId());
		assertThat(server.opened).as("one re-opening").hasValue(2);
	}

	/**
	 * Review 46l, N1: a re-opening done is remembered as the session it opened, not as the exchange that asked it: that
	 * exchange's request (its body, up to max-buffered-body, and the caller's credential) was held until 1,024 newer
	 * re-openings pushed it out. The request below is unreachable once the re-opening answered.
	 */
	@Test
	void aReOpeningDoneKeepsNothingOfTheRequestThatAskedIt() throws Exception {
		SessionServer server = new SessionServer();
		UpstreamSessions sessions = new UpstreamSessions(server, "f", new ServerVersions("f", List.of("2025-11-25")),
				new BridgedStreamsTest.Kept(), 65536, Duration.ofSeconds(60));
		ModernClient client = ModernClient.of("alice", (com.fasterxml.jackson.databind.node.ObjectNode) dev.mcprelay
			.testsupport.RawHttp.json(LIST.replace("ID", "1")));
		UpstreamSession first = sessions.find(relayed(), client).block(Duration.ofSeconds(30));
		server.live.clear();
		UpstreamRequest asking = relayed();
		java.lang.ref.WeakReference<UpstreamRequest> asked = new java.lang.ref.WeakReference<>(asking);

		UpstreamSession reopened = sessions.reopen(asking, client, first).block(Duration.ofSeconds(30));
		asking = null;
		for (int collections = 0; collections < 50 && asked.get() != null; collections++) {
			System.gc();
			Thread.sleep(20);
		}

		assertThat(asked.get()).as("the request that asked the re-opening is not kept").isNull();
		assertThat(sessions.reopen(relayed(), client, first).block(Duration.ofSeconds(30)).sessionId())
			.as("the re-opening is still shared").isEqualTo(reopened.sessionId());
		assertThat(server.opened).hasValue(2);
	}

	private static UpstreamRequest relayed() {
		return new UpstreamRequest("f", org.springframework.http.HttpMethod.POST,
				java.net.URI.create("http://127.0.0.1:1/mcp"), new HttpHeaders(),
				LIST.replace("ID", "1").getBytes(StandardCharsets.UTF_8), "alice", null);
	}

	private static final String NOPE = "{\"jsonrpc\":\"2.0\",\"id\":ID,\"method\":\"nope/x\",\"params\":{" + META
			+ "}}";

	private static VersionBridge bridge(UpstreamTransport server) {
		return new VersionBridge(server, "f", new ServerVersions("f", List.of("2025-11-25")), 65536,
				new BridgedStreamsTest.Kept(), BridgedStreamsTest.flightsOf(null), Duration.ofSeconds(60),
				new RelayMac((String) null), Duration.ofSeconds(60));
	}

	private static CompletableFuture<String> send(VersionBridge bridge, String body) {
		return PerRequestBridgeBoundsTest.send(bridge, "f", body);
	}

	/** A 2025 server that keeps sessions: what the TypeScript SDK v1's transport answers, scripted. */
	private static final class SessionServer implements UpstreamTransport {

		final Set<String> live = ConcurrentHashMap.newKeySet();

		final AtomicInteger opened = new AtomicInteger();

		final List<String> ended = new CopyOnWriteArrayList<>();

		/** What a request in a session the server does not know is answered with. */
		volatile HttpStatus forgottenStatus = HttpStatus.BAD_REQUEST;

		@Override
		public Mono<Void> send(UpstreamRequest request, Function<UpstreamResponse, Mono<Void>> handler) {
			return Mono.defer(() -> {
				request.onWritten().run();
				return handler.apply(answer(request));
			});
		}

		private UpstreamResponse answer(UpstreamRequest request) {
			String body = new String(request.body(), StandardCharsets.UTF_8);
			String id = dev.mcprelay.testsupport.RawHttp.json(body).path("id").asText();
			HttpHeaders headers = new HttpHeaders();
			headers.setContentType(MediaType.APPLICATION_JSON);
			if (body.contains("\"method\":\"initialize\"")) {
				String session = "s-" + opened.incrementAndGet();
				live.add(session);
				headers.set("Mcp-Session-Id", session);
				return json(headers, "{\"jsonrpc\":\"2.0\",\"id\":\"" + id + "\",\"result\":{\"protocolVersion\":"
						+ "\"2025-11-25\",\"capabilities\":{\"tools\":{}},\"serverInfo\":{\"name\":\"s\",\"version\":"
						+ "\"1\"}}}");
			}
			if (body.contains("\"progressToken\":{")) {
				return refusal(headers, -32700, "Parse error: Invalid JSON-RPC message");
			}
			if (!live.contains(String.valueOf(request.sessionId()))) {
				return forgottenStatus == HttpStatus.NOT_FOUND
						? LocalUpstreamResponse.replay(HttpStatus.NOT_FOUND, headers, ("{\"jsonrpc\":\"2.0\",\"error\":"
								+ "{\"code\":-32001,\"message\":\"Session not found\"},\"id\":null}")
							.getBytes(StandardCharsets.UTF_8))
						: refusal(headers, -32000, "Bad Request: No valid session ID provided");
			}
			if (body.contains("\"nope/x\"")) {
				return LocalUpstreamResponse.replay(HttpStatus.NOT_FOUND, headers, ("{\"jsonrpc\":\"2.0\",\"id\":\""
						+ id + "\",\"error\":{\"code\":-32601,\"message\":\"Method not found\"}}")
					.getBytes(StandardCharsets.UTF_8));
			}
			if (!body.contains("\"id\"")) {
				return LocalUpstreamResponse.empty(HttpStatus.ACCEPTED);
			}
			String result = body.contains("\"tools/list\"") ? "{\"tools\":[]}" : "{}";
			return json(headers, "{\"jsonrpc\":\"2.0\",\"id\":\"" + id + "\",\"result\":" + result + "}");
		}

		private static UpstreamResponse refusal(HttpHeaders headers, int code, String message) {
			return LocalUpstreamResponse.replay(HttpStatus.BAD_REQUEST, headers, ("{\"jsonrpc\":\"2.0\",\"error\":"
					+ "{\"code\":" + code + ",\"message\":\"" + message + "\"},\"id\":null}")
				.getBytes(StandardCharsets.UTF_8));
		}

		private static UpstreamResponse json(HttpHeaders headers, String body) {
			return LocalUpstreamResponse.json(headers, body.getBytes(StandardCharsets.UTF_8));
		}

		@Override
		public Mono<Void> receive(UpstreamRequest request, Function<UpstreamResponse, Mono<Void>> handler) {
			return Mono.error(new UnsupportedOperationException());
		}

		@Override
		public Mono<Void> close(UpstreamRequest request, Function<UpstreamResponse, Mono<Void>> handler) {
			return Mono.defer(() -> {
				String session = request.sessionId();
				ended.add(session);
				return handler.apply(LocalUpstreamResponse.empty(live.remove(session) ? HttpStatus.OK
						: HttpStatus.NOT_FOUND));
			});
		}

	}

}
